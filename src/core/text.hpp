// Small text helpers shared by every layer: ASCII lowercasing (locale-independent, for ids and names), the
// edit distance behind "did you mean ...?", and the sanitiser that every string from a trace, a config file
// or the network passes before it reaches a terminal.
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

/// What terminal_safe() does with line feeds and tabs.
enum class LineBreaks {
  Escape,  ///< "\n" and "\t" become the visible escapes `\n`, `\t` (a field printed on one line)
  Keep,    ///< kept as they are (a message or a report of several lines)
};

/// `text` made safe to print on a terminal: every byte or code point that a terminal would act on instead of
/// showing becomes a visible escape, so that a hostile device name such as "ESC]0;title BEL ESC[2J" cannot
/// set the window title, clear the screen or move the cursor. Escaped: C0 controls and DEL as `\xNN`
/// (`\r` as `\r`; `\n` and `\t` as chosen by `breaks`), C1 controls U+0080..U+009F (8-bit CSI, OSC, ...)
/// and the bidirectional overrides and isolates U+202A..U+202E, U+2066..U+2069 as `\uNNNN`, and every byte
/// that is not part of valid UTF-8 (overlong forms and surrogates included) as `\xNN`. Printable ASCII and
/// valid UTF-8 text are kept byte for byte (a text without anything to escape comes back unchanged). A
/// backslash is kept as is: the result is for people, not to be parsed back. Never fails; O(|text|).
[[nodiscard]] auto terminal_safe(std::string_view text, LineBreaks breaks = LineBreaks::Escape)
    -> std::string;

/// True when terminal_safe(text, breaks) would return `text` unchanged: a check without a copy, for the paths
/// that print the same strings often (a terminal frame). O(|text|).
[[nodiscard]] auto is_terminal_safe(std::string_view text, LineBreaks breaks = LineBreaks::Escape) -> bool;

}  // namespace solscope::core
