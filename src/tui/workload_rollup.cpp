#include "tui/detail/workload_rollup.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/workload_rollup.hpp"

namespace solscope::tui {
namespace {

/// Running weighted mean of known values.
struct WeightedMean {
  double sum = 0;
  double weight = 0;
  void add(double value, double w) {
    if (std::isnan(value) || !(w > 0)) return;
    sum += value * w;
    weight += w;
  }
  [[nodiscard]] auto mean() const -> double { return weight > 0 ? sum / weight : core::kUnknown; }
};

/// The row of one core::WorkloadRollup (the grouping is core's, done once): its means over its GPUs' newest
/// windows, looked up by device index in `devices`.
auto row_of(const core::WorkloadRollup& r, const std::vector<core::DeviceSnapshot>& devices)
    -> WorkloadRollupRow {
  WorkloadRollupRow row{.id = r.id, .display = r.id.display(), .gpus = r.gpus.size()};
  bool mixed = false;
  bool split_known = true;
  double share = 0;
  WeightedMean compute;
  WeightedMean memory;
  for (const core::WorkloadGpu& g : r.gpus) {
    mixed = mixed || g.sharing != r.gpus.front().sharing;
    if (g.fraction) {
      share += *g.fraction;
    } else {
      split_known = false;
    }
    const auto d = std::find_if(devices.begin(), devices.end(), [&g](const core::DeviceSnapshot& s) {
      return s.state.info.index == g.device;
    });
    if (d == devices.end() || !d->latest_window) continue;
    const double weight = g.fraction.value_or(1.0);
    compute.add(d->latest_window->compute_sol_pct, weight);
    memory.add(d->latest_window->memory_sol_pct, weight);
  }
  const core::WorkloadSharing sharing =
      r.gpus.empty() ? core::WorkloadSharing::kNone : r.gpus.front().sharing;
  row.sharing = mixed ? std::string("mixed") : std::string(core::sharing_label(sharing));
  row.share_gpus = split_known ? share : core::kUnknown;
  row.compute_sol_pct = compute.mean();
  row.memory_sol_pct = memory.mean();
  return row;
}

}  // namespace

auto workload_rollup(const std::vector<core::DeviceSnapshot>& devices) -> std::vector<WorkloadRollupRow> {
  std::vector<core::DeviceState> states;
  states.reserve(devices.size());
  for (const auto& d : devices) states.push_back(d.state);
  std::vector<WorkloadRollupRow> rows;
  for (const core::WorkloadRollup& r : core::workload_rollup(states)) rows.push_back(row_of(r, devices));
  return rows;
}

auto gpu_workload_text(const core::GpuWorkloads& workloads) -> std::string {
  if (workloads.workloads.empty()) return "-";
  if (workloads.sharing == core::WorkloadSharing::kExclusive || workloads.workloads.size() == 1) {
    return workloads.workloads.front().id.display();
  }
  return std::string(core::sharing_label(workloads.sharing)) + " x" +
         std::to_string(workloads.workloads.size());
}

}  // namespace solscope::tui
