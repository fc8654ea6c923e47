#include "core/workload_rollup.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "core/device_info.hpp"

namespace solscope::core {

auto WorkloadRollup::sharing_text() const -> std::string {
  std::vector<std::string_view> seen;
  for (const WorkloadGpu& g : gpus) {
    const std::string_view label = sharing_label(g.sharing);
    if (!label.empty() && std::find(seen.begin(), seen.end(), label) == seen.end()) seen.push_back(label);
  }
  std::string out;
  for (const std::string_view label : seen) {
    if (!out.empty()) out += ", ";
    out += label;
  }
  return out;
}

auto workload_rollup(std::span<const DeviceState> devices) -> std::vector<WorkloadRollup> {
  std::vector<WorkloadRollup> out;
  for (const DeviceState& d : devices) {
    for (const WorkloadShare& w : d.workloads.workloads) {
      auto it = std::find_if(out.begin(), out.end(), [&](const WorkloadRollup& r) { return r.id == w.id; });
      if (it == out.end()) {
        out.push_back(WorkloadRollup{.id = w.id, .origin = w.origin, .gpus = {}});
        it = std::prev(out.end());
      }
      it->gpus.push_back(WorkloadGpu{.device = d.info.index,
                                     .label = device_label(d.info),
                                     .sharing = d.workloads.sharing,
                                     .fraction = w.fraction,
                                     .sm_pct = w.sm_pct,
                                     .pids = w.pids});
    }
  }
  return out;
}

}  // namespace solscope::core
