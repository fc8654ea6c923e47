#include "tui/detail/widgets.hpp"

#include <algorithm>
#include <cmath>

#include "core/derive.hpp"
#include "core/units.hpp"
#include "tui/format.hpp"

namespace solscope::tui {
namespace {

/// U+2588 FULL BLOCK and its left eighths, 1/8 .. 7/8 (U+258F .. U+2589).
constexpr char32_t kFull = U'\u2588';
constexpr char32_t kEighths[8] = {U' ',      U'\u258F', U'\u258E', U'\u258D',
                                  U'\u258C', U'\u258B', U'\u258A', U'\u2589'};

}  // namespace

void draw_bar(Frame& frame, int row, int col, int width, double pct, Role role, double marker_pct) {
  if (width <= 0) return;
  const bool ascii = frame.ascii();
  const char32_t track = ascii ? U'.' : U'\u00B7';
  for (int i = 0; i < width; ++i) frame.set(row, col + i, track, Role::Dim);
  if (!std::isnan(pct)) {
    const int eighths = static_cast<int>(std::lround(core::clamp_pct(pct) / core::kPercent * width * 8));
    const int full = eighths / 8;
    for (int i = 0; i < full && i < width; ++i) frame.set(row, col + i, ascii ? U'#' : kFull, role);
    if (full < width && eighths % 8 != 0) {
      frame.set(row, col + full, ascii ? (eighths % 8 >= 4 ? U'#' : U':') : kEighths[eighths % 8], role);
    }
  }
  if (!std::isnan(marker_pct)) {
    const int at =
        std::min(width - 1, static_cast<int>(core::clamp_pct(marker_pct) / core::kPercent * width));
    frame.set(row, col + at, ascii ? U'|' : U'\u2502', Role::Marker);
  }
}

void draw_bar_line(Frame& frame, int row, int col, int width, const BarLine& line) {
  const bool ascii = frame.ascii();
  int x = col;
  x += frame.put(row, x, pad_right(line.label, line.label_width, ascii), Role::Normal,
                 std::min(line.label_width, width));
  const int bar_width = width - line.label_width - 1 - line.value_width;
  if (bar_width >= 3) {
    draw_bar(frame, row, x, bar_width, line.pct, line.role, line.marker_pct);
    x += bar_width + 1;
  }
  frame.put(row, x, pad_right(line.value, col + width - x, ascii), line.value_role, col + width - x);
}

}  // namespace solscope::tui
