// Line and column helpers shared by the text importers (dcgmi dmon, nvidia-smi dmon).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace solscope::imports {

/// Calls `fn(line_number, line)` for each line of `text` (1-based numbers, '\r' and the '\n' removed). Stops
/// early when `fn` returns false.
template <class Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  std::size_t number = 0;
  while (!text.empty()) {
    ++number;
    const std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!fn(number, line)) return;
    if (eol == std::string_view::npos) return;
    text.remove_prefix(eol + 1);
  }
}

/// The words of `line`, split on spaces and tabs.
[[nodiscard]] auto split_words(std::string_view line) -> std::vector<std::string_view>;

/// The whole of `word` as a finite double; nullopt otherwise.
[[nodiscard]] auto parse_finite(std::string_view word) -> std::optional<double>;

/// True for the words dmon tools print for "no value": "N/A", "N/W", "N/S" and the like, "-", "--" and the
/// en dash "–" (U+2013, which some copies of nvidia-smi output carry).
[[nodiscard]] auto is_blank_value(std::string_view word) -> bool;

/// `word` for a message: at most 40 bytes, control characters as '?'.
[[nodiscard]] auto quoted(std::string_view word) -> std::string;

}  // namespace solscope::imports
