// The one way solscope turns a JSON document into text. Every JSON writer that builds a document (the
// server's answers and stream, the report, fleet, devices, check and ceiling JSON) writes through it, so that
// the rule for text that is not UTF-8 is stated once. The JSON Lines of samples (`--json`, `export --format
// jsonl`) skip the document: wire::append_sol_sample_json writes the same bytes as json_text() would, and a
// test holds the two to it (tests/wire/sample_text_test.cpp).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace solscope::wire {

/// json_text()'s indent for compact text on one line (JSON Lines, HTTP answers, the event stream).
inline constexpr int kJsonOneLine = -1;
/// json_text()'s indent for documents meant to be read (`--json` reports): spaces per level.
inline constexpr int kJsonPretty = 2;

/// `json` as text, `indent` spaces per nesting level (kJsonOneLine: compact, one line). Non-ASCII text is
/// written as UTF-8, not as \u escapes. A string that is not valid UTF-8 is written with its ill-formed bytes
/// replaced by U+FFFD (nlohmann's error_handler_t::replace) instead of throwing type_error.316, so that one
/// bad byte can neither abort the process nor lose the output. Text from outside is already repaired where it
/// enters (core::valid_utf8); this is the writers' guarantee behind it. `Json` is nlohmann::json or
/// nlohmann::ordered_json. Never throws for a document of valid JSON values.
template <class Json>
[[nodiscard]] auto json_text(const Json& json, int indent = kJsonOneLine) -> std::string {
  return json.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace solscope::wire
