// The period half of core/iteration.hpp's detector: the samples on a uniform grid and the first prominent
// peak of their autocorrelation (docs/design/sol-metrics.md section 12). Used only by iteration.cpp.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "core/iteration.hpp"

namespace solscope::core::detail {

/// At most this many grid bins: the bin is max(median sample interval, window / this). Bounds the cost of the
/// autocorrelation (bins x bins / kIterationMinRepeats multiply-adds per series) whatever the sampling rate.
inline constexpr std::size_t kIterationMaxGridBins = 1024;
/// Fewer points than this: "too few samples".
inline constexpr std::size_t kIterationMinPoints = 16;
/// A series varies when its standard deviation on the grid reaches this share of its scale (100 for the
/// activity %, the window's largest figure for the interconnect).
inline constexpr double kIterationFlatShare = 0.01;
/// An interconnect below this rate (bytes/s) all window long is idle: PCIe housekeeping, not communication.
inline constexpr double kIterationInterconnectFloorBytesPerS = 1e8;
/// The peak search starts where the autocorrelation first drops below this (the end of its first descent).
inline constexpr double kIterationDescentEnd = 0.0;
/// Of the peaks after the descent, the shortest lag reaching this share of the highest is the period (its
/// multiples correlate as well; a shorter lag that repeats as well is the iteration).
inline constexpr double kIterationHarmonicShare = 0.9;
/// The chosen lag divided by 2..this is tried as a shorter period, at fractional lags (a period that is not a
/// whole number of bins), and taken when its correlation reaches kIterationDivisorShare of the chosen one's.
inline constexpr std::size_t kIterationMaxDivisor = 4;
inline constexpr double kIterationDivisorShare = 0.7;
/// A period must span at least this many sample intervals: a shorter one is beyond what the samples resolve
/// (a period of 1.5 samples repeats in the samples every 3), "period under 4 samples".
inline constexpr double kIterationMinPeriodSamples = 4.0;

struct PeriodFit {
  double period_s = kUnknown;  ///< NaN when none
  double confidence = 0.0;     ///< the normalised autocorrelation at the period, 0-1
  std::string_view note;       ///< why none (static text); empty when found
};

/// The period of `points` (oldest first): kIterationMinConfidence and kIterationMinRepeats applied.
[[nodiscard]] auto find_period(std::span<const IterationPoint> points) -> PeriodFit;

}  // namespace solscope::core::detail
