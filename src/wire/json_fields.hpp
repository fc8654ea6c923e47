// Tolerant reads of one field of a JSON object, for answers and files solscope does not control (a Prometheus
// API answer, a query_range export, a peer solscope's /api/v1 answer and stream, an inference server's
// /v1/models).
//
// nlohmann::json's own `value(key, default)` throws type_error when the key holds another type (a "status"
// that is an object, found by the import_text fuzz target); these reads never throw and return the fallback
// for an absent key, a null, or a value of another type. Header-only: every user already links nlohmann_json.
// For files whose wrong types must be reported (GPU specs, model configs) see ceiling/detail/json_read.hpp.
#pragma once

#include <limits>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace solscope::wire {

/// The string at `key` of `object`, or `fallback` when `object` is not an object, the key is absent, or its
/// value is not a string.
[[nodiscard]] inline auto string_field(const nlohmann::json& object, std::string_view key,
                                       std::string_view fallback = {}) -> std::string {
  if (!object.is_object()) return std::string(fallback);
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string(fallback);
}

/// The number at `key` of `object`, or `fallback` (NaN, unknown, by default) when the key is absent or its
/// value is not a number.
[[nodiscard]] inline auto number_field(const nlohmann::json& object, std::string_view key,
                                       double fallback = std::numeric_limits<double>::quiet_NaN()) -> double {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

/// The integer at `key` of `object` as a T, or `fallback` when the key is absent or its value is not an
/// integer (a float such as 1.5 is not).
template <class T>
[[nodiscard]] auto integer_field(const nlohmann::json& object, std::string_view key, T fallback) -> T {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<T>() : fallback;
}

}  // namespace solscope::wire
