// The fold half of core/iteration.hpp's detector: with the period known, each iteration's start, the jitter,
// the parts of one iteration, its strip and the communication offset (docs/design/sol-metrics.md section 12).
// Used only by iteration.cpp.
#pragma once

#include <span>

#include "core/iteration.hpp"

namespace solscope::core::detail {

/// The interconnect is busy at or above lo + this x (hi - lo), lo and hi the window's 2nd and 98th
/// percentiles of the interconnect rate.
inline constexpr double kIterationBusyLevel = 0.5;
/// ... unless hi - lo is below this share of hi: the rate is then flat, busy all window long when lo reaches
/// detail::kIterationInterconnectFloorBytesPerS, else never.
inline constexpr double kIterationFlatLinkShare = 0.25;
/// An iteration's start (or its communication's) is looked for within this share of a period of where the
/// previous one predicts it.
inline constexpr double kIterationSearchShare = 0.25;

/// Fills the fields of `out` that follow from the period (jitter_s, part_ratio, communication_ratio,
/// exposed_communication_ratio, communication_offset_s, strip) from `points` (oldest first, at least 2).
void fold_iteration(std::span<const IterationPoint> points, double period_s, IterationEstimate& out);

}  // namespace solscope::core::detail
