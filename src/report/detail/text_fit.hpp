// The one way the report's text cuts a name to a column: terminal-safe, "..." when cut, never inside a UTF-8
// sequence (report_text.cpp, training_steps_present.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/text.hpp"

namespace solscope::report::detail {

/// `text` made terminal-safe (core::terminal_safe) and cut to `width` bytes (>= 3), ending in "..." when
/// cut.
inline auto fit(std::string_view text, std::size_t width) -> std::string {
  std::string safe = core::terminal_safe(text);
  if (safe.size() <= width) return safe;
  std::size_t cut = width - 3;
  while (cut > 0 && (static_cast<unsigned char>(safe[cut]) & 0xC0U) == 0x80U) --cut;
  return safe.substr(0, cut) + "...";
}

}  // namespace solscope::report::detail
