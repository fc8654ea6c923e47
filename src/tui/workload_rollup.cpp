#include "tui/detail/workload_rollup.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <string>
#include <utility>

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

/// A row being built: the row, its means and whether every GPU's split is known.
struct Building {
  WorkloadRollupRow row;
  std::optional<core::WorkloadSharing> sharing;
  bool mixed = false;
  bool split_known = true;
  double share = 0;
  WeightedMean compute;
  WeightedMean memory;
};

void add_gpu(Building& b, const core::DeviceSnapshot& d, const core::WorkloadShare& share) {
  const core::WorkloadSharing sharing = d.state.workloads.sharing;
  if (b.sharing && *b.sharing != sharing) b.mixed = true;
  b.sharing = sharing;
  ++b.row.gpus;
  if (share.fraction) {
    b.share += *share.fraction;
  } else {
    b.split_known = false;
  }
  const double weight = share.fraction.value_or(1.0);
  if (d.latest_window) {
    b.compute.add(d.latest_window->compute_sol_pct, weight);
    b.memory.add(d.latest_window->memory_sol_pct, weight);
  }
}

}  // namespace

auto workload_rollup(const std::vector<core::DeviceSnapshot>& devices) -> std::vector<WorkloadRollupRow> {
  std::vector<Building> building;
  for (const auto& d : devices) {
    for (const auto& share : d.state.workloads.workloads) {
      auto it = std::find_if(building.begin(), building.end(),
                             [&share](const Building& b) { return b.row.id == share.id; });
      if (it == building.end()) {
        building.emplace_back();
        it = std::prev(building.end());
        it->row.id = share.id;
        it->row.display = share.id.display();
      }
      add_gpu(*it, d, share);
    }
  }
  std::vector<WorkloadRollupRow> rows;
  rows.reserve(building.size());
  for (auto& b : building) {
    b.row.sharing = b.mixed
                        ? std::string("mixed")
                        : std::string(core::sharing_label(b.sharing.value_or(core::WorkloadSharing::kNone)));
    b.row.share_gpus = b.split_known ? b.share : core::kUnknown;
    b.row.compute_sol_pct = b.compute.mean();
    b.row.memory_sol_pct = b.memory.mean();
    rows.push_back(std::move(b.row));
  }
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
