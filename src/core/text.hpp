// Small text helpers shared by every layer: ASCII lowercasing (locale-independent, for ids and names), the
// edit distance behind "did you mean ...?", the UTF-8 repair that every text from outside (a trace, an
// imported file, a scrape) passes where it enters, and the sanitiser that every string from a trace, a config
// file or the network passes before it reaches a terminal.
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

/// U+FFFD REPLACEMENT CHARACTER in UTF-8: what valid_utf8() puts in place of each ill-formed sequence.
inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

/// True when `text` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates U+D800..U+DFFF, nothing
/// above U+10FFFF, no truncated sequence). NUL and other controls are well-formed. O(|text|), no copy.
[[nodiscard]] auto is_valid_utf8(std::string_view text) -> bool;

/// `text` made well-formed UTF-8: each ill-formed sequence is replaced by one U+FFFD per maximal subpart, the
/// practice Unicode recommends and WHATWG's decoder, ICU and Python follow (Unicode 15.0 section 3.9, "U+FFFD
/// Substitution of Maximal Subparts"): the longest prefix of a valid sequence found at a position becomes one
/// U+FFFD, and a byte that starts no valid sequence (a lone continuation byte, C0, C1, F5..FF) becomes one.
/// For example the bytes 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64 become "a\uFFFD\uFFFD\uFFFDb\uFFFDc\uFFFD
/// \uFFFDd". Well-formed text comes back byte for byte. Used where text from outside enters (the trace
/// reader, the importers, the exposition-text parser), so that every JSON, Prometheus or terminal writer
/// after it sees valid UTF-8. Never fails; O(|text|); the result is at most 3 times as long as `text`.
[[nodiscard]] auto valid_utf8(std::string_view text) -> std::string;

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
