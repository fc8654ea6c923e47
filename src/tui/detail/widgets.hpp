// Small drawing pieces shared by the views: percentage bars with an optional marker.
#pragma once

#include <string>

#include "tui/detail/frame.hpp"

namespace solscope::tui {

/// Draws a horizontal bar of `width` cells at (row, col) for `pct` (0-100, clamped): filled cells in `role`
/// (eighth-block precision, or '#' in an ascii frame), the rest a dim track. A known `marker_pct` puts a
/// marker glyph ('|' in ascii) in Role::Marker at that position (the attainable SOL). NaN `pct` draws only
/// the track. Nothing for width <= 0.
void draw_bar(Frame& frame, int row, int col, int width, double pct, Role role, double marker_pct);

/// Draws `label`, a bar and the value text in one row of `width` cells: "<label><bar> <value>", with the
/// label padded to `label_width` and the value to `value_width` (cut when longer). Returns nothing; the bar
/// gets what is left (none when that is below 3 cells).
struct BarLine {
  std::string label;
  int label_width = 0;
  double pct = 0.0;
  double marker_pct = 0.0;
  Role role = Role::Normal;
  std::string value;
  int value_width = 0;
  Role value_role = Role::Normal;
};
void draw_bar_line(Frame& frame, int row, int col, int width, const BarLine& line);

}  // namespace solscope::tui
