// Small text helpers shared by every layer: ASCII lowercasing (locale-independent, for ids and names) and the
// edit distance behind "did you mean ...?".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace solscope::core {

/// `text` with 'A'-'Z' lowercased; other bytes unchanged (no locale: ids, bus ids, dtype and engine names).
[[nodiscard]] auto to_lower_ascii(std::string_view text) -> std::string;

/// Levenshtein distance: the fewest single-byte inserts, deletes and substitutions from `a` to `b`.
/// O(|a| x |b|) time, O(|b|) memory.
[[nodiscard]] auto edit_distance(std::string_view a, std::string_view b) -> std::size_t;

}  // namespace solscope::core
