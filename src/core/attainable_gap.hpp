// The gap between a GPU's live SOL and the attainable SOL of its workload: the one place it is computed, for
// the terminal view, the API's sample JSON (and so the web page) and the report's headroom.
#pragma once

#include <cmath>

#include "core/sol_sample.hpp"

namespace solscope::core {

/// Attainable minus live, in percentage points of the peak (positive: room left; negative: the GPU beats the
/// model). NaN when either figure is unknown.
struct AttainableGap {
  double compute_pts = kUnknown;  ///< attainable_compute_sol_pct - compute_sol_pct
  double memory_pts = kUnknown;   ///< attainable_memory_sol_pct - memory_sol_pct
};

/// `attainable - live` in points; NaN when either is NaN.
[[nodiscard]] inline auto gap_pts(double attainable_pct, double live_pct) -> double {
  return std::isnan(attainable_pct) || std::isnan(live_pct) ? kUnknown : attainable_pct - live_pct;
}

/// The gap of a sample or window (SolSample's attainable and live Compute and Memory SOL).
[[nodiscard]] inline auto attainable_gap(const SolSample& s) -> AttainableGap {
  return AttainableGap{.compute_pts = gap_pts(s.attainable_compute_sol_pct, s.compute_sol_pct),
                       .memory_pts = gap_pts(s.attainable_memory_sol_pct, s.memory_sol_pct)};
}

}  // namespace solscope::core
