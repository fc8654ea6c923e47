// JSON text written straight into a string, byte for byte as nlohmann-json's dump(-1, ' ', false,
// error_handler_t::replace) writes the same value: for the writers that skip building a document (the JSON
// Lines of `--json` and of the trace export).
#pragma once

#include <string>
#include <string_view>

namespace solscope::wire::detail {

/// Appends `text` as a JSON string: quoted; `"` and `\` escaped; \b \t \n \f \r; every other byte below 0x20
/// as \u00XX (lower-case hex); valid UTF-8 as it is; each invalid UTF-8 sequence replaced by U+FFFD (bytes
/// EF BF BD), resuming at the byte that made it invalid, and a sequence cut off by the end of `text` replaced
/// by one U+FFFD, as nlohmann's replacing error handler does.
void append_json_string(std::string& out, std::string_view text);

/// Appends `v` as nlohmann-json writes a double: the shortest digits that read back to `v` (Grisu2, the
/// library's own to_chars), "42.0" for a whole number, "1e+300" beyond 15 digits; null for NaN or infinity.
void append_json_number(std::string& out, double v);

}  // namespace solscope::wire::detail
