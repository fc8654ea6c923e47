#include "tui/detail/chart.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/derive.hpp"
#include "core/units.hpp"
#include "tui/format.hpp"

namespace solscope::tui {
namespace {

constexpr int kMinLabelGap = 8;

/// Braille dot bits (Unicode "Braille Patterns" block, U+2800 + bits): column 0 rows 0-3 are dots 1, 2, 3, 7;
/// column 1 rows 0-3 are dots 4, 5, 6, 8.
constexpr unsigned kDotBits[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};

/// Mean value per column over `columns` buckets of the window; NaN where no point falls.
auto bucket(std::span<const ChartPoint> points, const ChartSpec& spec, int columns) -> std::vector<double> {
  std::vector<double> sum(static_cast<std::size_t>(columns), 0.0);
  std::vector<int> count(static_cast<std::size_t>(columns), 0);
  const auto span = static_cast<double>(spec.to_ns - spec.from_ns);
  for (const auto& p : points) {
    if (std::isnan(p.pct) || p.t_end_ns <= spec.from_ns || p.t_end_ns > spec.to_ns) continue;
    const double x = static_cast<double>(p.t_end_ns - spec.from_ns) / span * columns;
    const auto i = static_cast<std::size_t>(std::clamp(static_cast<int>(std::ceil(x)) - 1, 0, columns - 1));
    sum[i] += core::clamp_pct(p.pct);
    ++count[i];
  }
  for (std::size_t i = 0; i < sum.size(); ++i) sum[i] = count[i] > 0 ? sum[i] / count[i] : std::nan("");
  // Points sparser than columns leave one- or two-column holes between known values (aliasing, not missing
  // data): those take the value on their left. Longer holes are gaps in the data and stay blank.
  constexpr std::size_t kMaxHole = 2;
  std::size_t last_known = sum.size();
  for (std::size_t i = 0; i < sum.size(); ++i) {
    if (std::isnan(sum[i])) continue;
    if (last_known != sum.size() && i - last_known - 1 <= kMaxHole) {
      for (std::size_t j = last_known + 1; j < i; ++j) sum[j] = sum[last_known];
    }
    last_known = i;
  }
  return sum;
}

void draw_braille(Frame& frame, const Rect& plot, const std::vector<double>& values, Role role) {
  const int dots_high = plot.height * 4;
  for (int cell_x = 0; cell_x < plot.width; ++cell_x) {
    for (int cell_y = 0; cell_y < plot.height; ++cell_y) {
      unsigned bits = 0;
      for (int sub = 0; sub < 2; ++sub) {
        const double v = values[static_cast<std::size_t>(cell_x) * 2 + static_cast<std::size_t>(sub)];
        if (std::isnan(v)) continue;
        const int filled = static_cast<int>(std::lround(v / core::kPercent * dots_high));
        for (int dy = 0; dy < 4; ++dy) {
          const int dot_from_bottom = (plot.height - 1 - cell_y) * 4 + (3 - dy);
          if (dot_from_bottom < filled) bits |= kDotBits[sub][dy];
        }
      }
      if (bits != 0) frame.set(plot.row + cell_y, plot.col + cell_x, U'\u2800' + bits, role);
    }
  }
}

void draw_ascii(Frame& frame, const Rect& plot, const std::vector<double>& values, Role role) {
  for (int x = 0; x < plot.width; ++x) {
    const double v = values[static_cast<std::size_t>(x)];
    if (std::isnan(v)) continue;
    const double level = v / core::kPercent * plot.height;  // cells, from the bottom
    for (int y = 0; y < plot.height; ++y) {
      const double from_bottom = plot.height - 1 - y;
      const double part = level - from_bottom;
      if (part >= 0.75) {
        frame.set(plot.row + y, plot.col + x, U'#', role);
      } else if (part >= 0.4) {
        frame.set(plot.row + y, plot.col + x, U':', role);
      } else if (part >= 0.1 || (from_bottom == 0 && v > 0.0)) {
        frame.set(plot.row + y, plot.col + x, U'.', role);
      }
    }
  }
}

/// A tick spacing from 1-2-5 steps of seconds/minutes keeping `ticks` labels at least kMinLabelGap apart.
auto tick_step_ns(std::int64_t span_ns, int width) -> std::int64_t {
  static constexpr std::int64_t kSteps[] = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600};
  const int max_ticks = std::max(1, width / kMinLabelGap);
  for (const auto s : kSteps) {
    if (span_ns / (s * core::kNsPerS) <= max_ticks) return s * core::kNsPerS;
  }
  return 3600 * core::kNsPerS;
}

void draw_axis(Frame& frame, int row, const Rect& plot, const ChartSpec& spec) {
  const std::int64_t span = spec.to_ns - spec.from_ns;
  const std::int64_t step = tick_step_ns(span, plot.width);
  int free_until = plot.right();  // labels are placed right to left, ending at their tick
  for (std::int64_t back = 0; back <= span; back += step) {
    const int x = plot.col + static_cast<int>(static_cast<double>(span - back) / static_cast<double>(span) *
                                              (plot.width - 1));
    const std::string label = back == 0 ? "now" : format_span(-back);
    const int w = text_width(label);
    const int start = x - w + 1;
    if (start < plot.col) break;
    if (start + w > free_until) continue;
    frame.put(row, start, label, Role::Dim);
    free_until = start - 1;
  }
}

}  // namespace

void draw_chart(Frame& frame, const Rect& area, const ChartSpec& spec, std::span<const ChartPoint> points) {
  if (area.height < 3 || area.width < 10) return;
  frame.put(area.row, area.col, fit(spec.title, area.width, frame.ascii()), Role::Title, area.width);
  const Rect plot{area.row + 1, area.col + kChartScaleWidth, area.height - 2, area.width - kChartScaleWidth};
  const char32_t tick = frame.ascii() ? U'|' : U'\u2524';
  for (int y = 0; y < plot.height; ++y) {
    const bool top = y == 0;
    const bool bottom = y == plot.height - 1;
    const bool middle = plot.height >= 3 && y == plot.height / 2 && !top && !bottom;
    if (top || bottom || middle) {
      frame.put(plot.row + y, area.col, pad_left(top ? "100" : bottom ? "0" : "50", 3), Role::Dim);
    }
    frame.set(plot.row + y, area.col + 3, tick, Role::Dim);
  }
  draw_axis(frame, area.bottom() - 1, plot, spec);
  if (spec.to_ns <= spec.from_ns) return;
  if (frame.ascii()) {
    draw_ascii(frame, plot, bucket(points, spec, plot.width), spec.role);
  } else {
    draw_braille(frame, plot, bucket(points, spec, plot.width * 2), spec.role);
  }
}

auto chart_merge_for(std::int64_t window_ns, std::int64_t base_window_ns, int width) -> std::int64_t {
  const std::int64_t dots = std::max(1, (width - kChartScaleWidth) * 2);
  const std::int64_t windows = window_ns / std::max<std::int64_t>(base_window_ns, 1);
  return std::max<std::int64_t>(1, (windows + dots - 1) / dots);
}

}  // namespace solscope::tui
