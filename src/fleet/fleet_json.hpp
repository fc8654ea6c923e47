// The fleet as JSON: `solscope fleet --json` prints a snapshot, and the web dashboard's API can send the same
// document. Unknown figures (NaN) are null; the thresholds of the definitions travel with the figures.
// Field list: docs/fleet.md.
#pragma once

#include <string>

#include "fleet/fleet_model.hpp"

namespace solscope::fleet {

/// `{"source", "window_start_ns", "window_end_ns", "step_ns", "notes": [...], "thresholds": {...}, "totals":
/// {...}, "rows": [{"host", "gpu", "uuid", "model_name", "job", "series", "compute_sol_pct", ...}]}`,
/// compact.
[[nodiscard]] auto snapshot_json(const FleetSnapshot& snapshot) -> std::string;

/// `{"host", "gpu", "uuid", "model_name", "job", "series", "notes", "points": [{"t_ns", "compute_sol_pct",
/// "memory_sol_pct", "gpu_util_pct"}]}`, compact.
[[nodiscard]] auto history_json(const GpuHistory& history) -> std::string;

/// "solscope" or "dcgm".
[[nodiscard]] auto series_kind_name(SeriesKind kind) -> const char*;

}  // namespace solscope::fleet
