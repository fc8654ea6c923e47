// The fleet as JSON: `solscope fleet --json` prints a snapshot, and the web dashboard's API can send the same
// document. Unknown figures (NaN) are null; the thresholds of the definitions travel with the figures.
// Field list: docs/fleet.md.
#pragma once

#include <string>

#include "fleet/fleet_model.hpp"

namespace solscope::fleet {

/// `{"source", "window_start_ns", "window_end_ns", "step_ns", "notes": [...], "thresholds": {...}, "totals":
/// {...}, "rows": [{"host", "gpu", "uuid", "model_name", "job", "series", "compute_sol_pct", ...,
/// "iteration_s", "compute_ratio", "exposed_communication_ratio", "iteration_compute_s", "job_label_value",
/// "iteration_group", "iteration_straggler"}], "job_label", "iteration_groups": [{"group", "gpus": [{"host",
/// "gpu", "label"}], "straggler": {...}, "straggler_compute_s", "median_compute_s", "spread_pct",
/// "iteration_spread_pct"}]}`, compact; unknown figures null.
[[nodiscard]] auto snapshot_json(const FleetSnapshot& snapshot) -> std::string;

/// `{"host", "gpu", "uuid", "model_name", "job", "series", "notes", "points": [{"t_ns", "compute_sol_pct",
/// "memory_sol_pct", "gpu_util_pct"}]}`, compact.
[[nodiscard]] auto history_json(const GpuHistory& history) -> std::string;

/// `{"source", "by", "window_start_ns", "window_end_ns", "step_ns", "notes": [...], "thresholds": {...},
/// "totals": {...}, "rows": [{"group", "gpus", "allocated_gpu_hours", "idle_gpu_hours",
/// "busy_idle_gpu_hours", "wasted_gpu_hours", "compute_sol_mean_pct"}]}`, compact; rows most wasted first
/// (docs/fleet.md).
[[nodiscard]] auto workloads_json(const WorkloadRollup& rollup) -> std::string;

/// "solscope" or "dcgm".
[[nodiscard]] auto series_kind_name(SeriesKind kind) -> const char*;

}  // namespace solscope::fleet
