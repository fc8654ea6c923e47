// Order statistics every room shares: the median of known values, a percentile of sorted values, and the
// upper median. Pure, standard library only; defined once so that a report, a fleet view and the straggler
// rule agree to the last bit.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "core/raw_sample.hpp"
#include "core/units.hpp"

namespace solscope::core {

/// The percentile `p` (0-100) of `sorted` (ascending, not empty): linear interpolation between the two
/// nearest ranks at p/100 x (n - 1) (Hyndman and Fan 1996, type 7; numpy's default). p = 50 is the median
/// (the mean of the middle two for an even count).
template <class T>
[[nodiscard]] auto percentile_sorted(std::span<const T> sorted, double p) -> double {
  const double rank = p / kPercent * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const auto low = static_cast<double>(sorted[lo]);
  const auto high = static_cast<double>(sorted[hi]);
  return low + (high - low) * (rank - static_cast<double>(lo));
}

/// The median of the known (not NaN) `values`: the middle one, or the mean of the middle two for an even
/// count; kUnknown when none is known.
[[nodiscard]] inline auto median_known(std::vector<double> values) -> double {
  std::erase_if(values, [](double v) { return std::isnan(v); });
  if (values.empty()) return kUnknown;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

/// The upper median of `values` (not empty): the element at n/2 of their order, always one of them. Reorders
/// `values` (nth_element: linear, no full sort).
template <class T>
[[nodiscard]] auto upper_median(std::vector<T>& values) -> T {
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

}  // namespace solscope::core
