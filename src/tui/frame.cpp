#include "tui/detail/frame.hpp"

#include <algorithm>

#include "core/text.hpp"

namespace solscope::tui {
namespace {

/// Decodes one UTF-8 code point at `text[i]`, advancing `i`; U+FFFD for an invalid or truncated sequence.
auto decode_utf8(std::string_view text, std::size_t& i) -> char32_t {
  const auto lead = static_cast<unsigned char>(text[i++]);
  if (lead < 0x80) return lead;
  int extra = 0;
  char32_t c = 0;
  if ((lead & 0xE0) == 0xC0) {
    extra = 1;
    c = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    extra = 2;
    c = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    extra = 3;
    c = lead & 0x07;
  } else {
    return U'\uFFFD';
  }
  for (int k = 0; k < extra; ++k) {
    if (i >= text.size() || (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) return U'\uFFFD';
    c = (c << 6) | (static_cast<unsigned char>(text[i++]) & 0x3F);
  }
  return c;
}

/// Code points that would not take exactly one cell: controls, and East Asian wide ranges (approximate).
auto single_width(char32_t c) -> bool {
  if (c < 0x20 || (c >= 0x7F && c < 0xA0)) return false;
  if (c >= 0x1100 && c <= 0x115F) return false;
  if (c >= 0x2E80 && c <= 0xA4CF) return false;
  if (c >= 0xAC00 && c <= 0xD7A3) return false;
  if (c >= 0xF900 && c <= 0xFAFF) return false;
  if (c >= 0xFE30 && c <= 0xFE4F) return false;
  if (c >= 0xFF00 && c <= 0xFF60) return false;
  if (c >= 0xFFE0 && c <= 0xFFE6) return false;
  return c < 0x1F000;
}

}  // namespace

Frame::Frame(int rows, int cols, bool ascii)
    : rows_(std::max(rows, 0)),
      cols_(std::max(cols, 0)),
      ascii_(ascii),
      cells_(static_cast<std::size_t>(rows_) * static_cast<std::size_t>(cols_)) {}

auto Frame::at(int row, int col) const -> Cell {
  if (row < 0 || col < 0 || row >= rows_ || col >= cols_) return Cell{};
  return cells_[static_cast<std::size_t>(row) * static_cast<std::size_t>(cols_) +
                static_cast<std::size_t>(col)];
}

void Frame::set(int row, int col, char32_t glyph, Role role) {
  if (row < 0 || col < 0 || row >= rows_ || col >= cols_) return;
  if (ascii_ && glyph > 0x7E) glyph = U'?';
  cells_[static_cast<std::size_t>(row) * static_cast<std::size_t>(cols_) + static_cast<std::size_t>(col)] =
      Cell{glyph, role};
}

void Frame::fill(const Rect& rect, char32_t glyph, Role role) {
  const int r0 = std::max(rect.row, 0);
  const int r1 = std::min(rect.bottom(), rows_);
  const int c0 = std::max(rect.col, 0);
  const int c1 = std::min(rect.right(), cols_);
  for (int r = r0; r < r1; ++r) {
    for (int c = c0; c < c1; ++c) set(r, c, glyph, role);
  }
}

auto Frame::put(int row, int col, std::string_view raw, Role role, int max_width) -> int {
  const int limit = max_width < 0 ? cols_ - col : max_width;
  // Names, commands and notes come from traces, daemons and /proc: escapes show as in the text view.
  // Most strings (labels with box-drawing and degree signs too) need nothing: checked without a copy.
  const bool plain = core::is_terminal_safe(raw);
  const std::string escaped = plain ? std::string() : core::terminal_safe(raw);
  const std::string_view text = plain ? raw : std::string_view(escaped);
  int written = 0;
  std::size_t i = 0;
  while (i < text.size() && written < limit) {
    char32_t c = decode_utf8(text, i);
    if (!single_width(c)) c = U'?';
    set(row, col + written, c, role);
    ++written;
  }
  return written;
}

void Frame::clear() {
  std::fill(cells_.begin(), cells_.end(), Cell{});
}

auto Frame::row_text(int row) const -> std::string {
  std::string out;
  for (int c = 0; c < cols_; ++c) append_utf8(out, at(row, c).glyph);
  return out;
}

auto Frame::text() const -> std::string {
  std::string out;
  for (int r = 0; r < rows_; ++r) {
    std::string line = row_text(r);
    line.erase(line.find_last_not_of(' ') + 1);
    out += line;
    out += '\n';
  }
  return out;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

}  // namespace solscope::tui
