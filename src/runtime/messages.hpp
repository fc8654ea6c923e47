// User-facing message grammar (docs/design/style.md section 2): "solscope: error: <what>: <why>. <fix>".
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace solscope::app {

/// Writes "solscope: error: <error.describe()>" and a newline. Every message is one line, its text written
/// through core::terminal_safe: control characters (line breaks included) and escape sequences from traces,
/// configs or the network show as visible escapes, so they can neither steer the terminal nor forge a line.
void print_error(std::ostream& err, const core::Error& error);

/// Writes "solscope: warning: <text>" and a newline.
void print_warning(std::ostream& err, std::string_view text);

/// Writes "solscope: <text>" and a newline (a notice, not a problem).
void print_note(std::ostream& err, std::string_view text);

/// The candidate closest to `word` by edit distance (Levenshtein, case-sensitive), if that distance is at
/// most max(2, |word| / 3); empty otherwise. Used for "did you mean ...?".
[[nodiscard]] auto closest_match(std::string_view word, std::span<const std::string> candidates)
    -> std::string;

}  // namespace solscope::app
