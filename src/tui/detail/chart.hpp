// History chart: one percentage series over a time window, drawn as a filled area in braille dots (2 x 4 per
// cell; an ASCII frame gets '#', ':' and '.'), with a 0-50-100 scale and a labelled time axis.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "tui/detail/frame.hpp"

namespace solscope::tui {

/// One value of a series: the percentage (NaN = unknown, left blank) of the interval ending at t_end_ns.
struct ChartPoint {
  std::int64_t t_end_ns = 0;
  double pct = 0.0;
};

/// What one chart shows.
struct ChartSpec {
  std::string title;         ///< drawn on the first row
  Role role = Role::Normal;  ///< colour of the area
  std::int64_t from_ns = 0;  ///< left edge of the window (sample clock)
  std::int64_t to_ns = 0;    ///< right edge ("now"); to_ns > from_ns, else nothing is plotted
};

/// Columns taken by the scale at the left of the plot ("100┤").
inline constexpr int kChartScaleWidth = 4;

/// Draws a chart into `area` (title row, plot rows, axis row; nothing when area is under 3 rows or 10
/// columns). Points outside [from_ns, to_ns] are ignored; points falling in the same dot column are averaged.
/// The time axis labels ticks relative to to_ns ("-45s", "-30s", ..., "now") at a spacing from 1-2-5 steps of
/// seconds and minutes that keeps labels at least 8 cells apart.
void draw_chart(Frame& frame, const Rect& area, const ChartSpec& spec, std::span<const ChartPoint> points);

/// How many LiveState windows to merge per chart point so that a window of `window_ns` gives about one point
/// per braille dot column of a chart `width` cells wide (>= 1).
[[nodiscard]] auto chart_merge_for(std::int64_t window_ns, std::int64_t base_window_ns, int width)
    -> std::int64_t;

}  // namespace solscope::tui
