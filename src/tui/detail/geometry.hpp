// Rectangles of the terminal screen, in character cells.
#pragma once

namespace solscope::tui {

/// A rectangle of cells: rows [row, row + height), columns [col, col + width). Empty when height or width is
/// 0 or less.
struct Rect {
  int row = 0;
  int col = 0;
  int height = 0;
  int width = 0;

  [[nodiscard]] auto empty() const -> bool { return height <= 0 || width <= 0; }
  [[nodiscard]] auto bottom() const -> int { return row + height; }  ///< one past the last row
  [[nodiscard]] auto right() const -> int { return col + width; }    ///< one past the last column
  /// True when both are non-empty and share at least one cell.
  [[nodiscard]] auto overlaps(const Rect& o) const -> bool {
    return !empty() && !o.empty() && row < o.bottom() && o.row < bottom() && col < o.right() &&
           o.col < right();
  }
  /// True when `inner` lies entirely inside this rectangle (an empty `inner` is inside anything).
  [[nodiscard]] auto contains(const Rect& inner) const -> bool {
    return inner.empty() ||
           (inner.row >= row && inner.col >= col && inner.bottom() <= bottom() && inner.right() <= right());
  }
  auto operator==(const Rect&) const -> bool = default;
};

/// A `height` x `width` rectangle centred in `outer`, shrunk to fit.
[[nodiscard]] inline auto centered(const Rect& outer, int height, int width) -> Rect {
  const int h = height < outer.height ? height : outer.height;
  const int w = width < outer.width ? width : outer.width;
  return Rect{outer.row + (outer.height - h) / 2, outer.col + (outer.width - w) / 2, h, w};
}

}  // namespace solscope::tui
