// The terminal view's per-workload roll-up (the Workloads view) and the workload text of a GPU, from each
// GPU's attribution (core::DeviceState::workloads, core/workload.hpp: the rules are stated there once) and
// its newest window. Pure.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/live_state.hpp"
#include "core/units.hpp"

namespace solscope::tui {

/// One workload across the GPUs it is on.
struct WorkloadRollupRow {
  core::WorkloadIdentity id;
  std::string display;   ///< core::WorkloadIdentity::display(): "ml/train-1/main", "job 1234 (alice)"
  std::size_t gpus = 0;  ///< GPUs whose latest attribution holds it
  /// core::sharing_label() of its GPUs' sharing when they all agree ("exclusive", "shared (time-sliced)",
  /// "shared (concurrent)"), else "mixed".
  std::string sharing;
  /// Its share of the GPUs in GPU-equivalents: the sum of its fractions (1 per exclusive GPU, its SM share of
  /// a time-sliced one); NaN when any of its GPUs has no known split (concurrent: never invented).
  double share_gpus = core::kUnknown;
  /// Compute and Memory SOL of its GPUs' newest windows, percent: the mean over the GPUs with a known figure,
  /// each weighted by the workload's fraction of it (1 when no split is known: a concurrent GPU's figures
  /// stay the GPU's); NaN when none is known.
  double compute_sol_pct = core::kUnknown;
  double memory_sol_pct = core::kUnknown;
};

/// One row per distinct workload identity over `devices`, in order of first appearance (device order, then
/// each GPU's order); GPUs without a workload are left out.
[[nodiscard]] auto workload_rollup(const std::vector<core::DeviceSnapshot>& devices)
    -> std::vector<WorkloadRollupRow>;

/// A GPU's workload column: "-" with none, the single workload's display() when exclusive, else the sharing
/// label and how many workloads share it: "shared (time-sliced) x2", "shared (concurrent) x3".
[[nodiscard]] auto gpu_workload_text(const core::GpuWorkloads& workloads) -> std::string;

}  // namespace solscope::tui
