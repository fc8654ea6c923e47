// The one rule every JSON writer of solscope keeps for numbers: an unknown figure is null, never 0.
#pragma once

#include <cmath>

#include <nlohmann/json.hpp>

namespace solscope::wire {

/// `v` as a JSON number, or null when it is NaN (unknown) or infinite (JSON has no such number). `Json` is
/// the document type of the caller (nlohmann::ordered_json or nlohmann::json); the bytes written are the same
/// either way, since nlohmann::json writes a non-finite number as null too.
template <class Json = nlohmann::ordered_json>
[[nodiscard]] auto number_or_null(double v) -> Json {
  return std::isfinite(v) ? Json(v) : Json(nullptr);
}

}  // namespace solscope::wire
