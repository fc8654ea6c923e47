// Frame: the screen as a grid of cells (a glyph and a role), drawn by the views and shown by the terminal
// backend. Pure: no terminal, so that views are tested by reading a Frame back as text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tui/detail/geometry.hpp"
#include "tui/detail/style.hpp"

namespace solscope::tui {

/// One screen cell. Every glyph the views draw is one column wide.
struct Cell {
  char32_t glyph = U' ';
  Role role = Role::Normal;
  auto operator==(const Cell&) const -> bool = default;
};

/// A rows x cols grid of cells. Drawing outside the grid is clipped (never an error). Not thread-safe.
class Frame {
 public:
  /// An empty frame; negative sizes count as 0. `ascii` makes put() replace every non-ASCII code point with
  /// '?', for terminals without UTF-8.
  Frame(int rows, int cols, bool ascii = false);

  [[nodiscard]] auto rows() const -> int { return rows_; }
  [[nodiscard]] auto cols() const -> int { return cols_; }
  [[nodiscard]] auto ascii() const -> bool { return ascii_; }
  [[nodiscard]] auto bounds() const -> Rect { return Rect{0, 0, rows_, cols_}; }
  /// The cell at (row, col); a blank cell outside the grid.
  [[nodiscard]] auto at(int row, int col) const -> Cell;
  /// Sets one cell (clipped).
  void set(int row, int col, char32_t glyph, Role role);
  /// Fills `rect` (clipped) with `glyph`.
  void fill(const Rect& rect, char32_t glyph = U' ', Role role = Role::Normal);
  /// Writes UTF-8 `text` from (row, col), at most `max_width` cells (< 0: up to the right edge). Control
  /// characters, escape sequences and invalid UTF-8 bytes show as the visible escapes of core::terminal_safe
  /// ("\x1b", "\u009b", "\xff"); characters wider than one cell become '?'. Returns the cells written.
  auto put(int row, int col, std::string_view text, Role role, int max_width = -1) -> int;
  /// Blanks every cell.
  void clear();
  /// One row as UTF-8 text (trailing blanks kept); for tests and screen captures.
  [[nodiscard]] auto row_text(int row) const -> std::string;
  /// The whole frame as UTF-8 lines with trailing blanks removed, each ended by '\n'.
  [[nodiscard]] auto text() const -> std::string;

 private:
  int rows_;
  int cols_;
  bool ascii_;
  std::vector<Cell> cells_;
};

/// Appends the UTF-8 encoding of `c` to `out`.
void append_utf8(std::string& out, char32_t c);

}  // namespace solscope::tui
