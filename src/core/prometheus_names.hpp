// The one rule for Prometheus metric and label names, shared by the exposition-text parser (net) and the
// fleet's --job-label check (fleet_model, which may not use net). Pure, header-only.
#pragma once

#include <algorithm>
#include <string_view>

namespace solscope::core {

/// Whether `c` may start a name: [a-zA-Z_], and ':' for a metric name (`allow_colon`) [Prometheus docs,
/// "Data model", https://prometheus.io/docs/concepts/data_model/].
[[nodiscard]] constexpr auto is_prometheus_name_start(char c, bool allow_colon) -> bool {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (allow_colon && c == ':');
}

/// Whether `c` may follow in a name: a start character or a digit.
[[nodiscard]] constexpr auto is_prometheus_name_char(char c, bool allow_colon) -> bool {
  return is_prometheus_name_start(c, allow_colon) || (c >= '0' && c <= '9');
}

/// True when `name` is a Prometheus label name, [a-zA-Z_][a-zA-Z0-9_]* (same source). Names starting with
/// "__" match too; they are reserved for Prometheus' own use, which a caller checks where it matters.
[[nodiscard]] constexpr auto is_prometheus_label_name(std::string_view name) -> bool {
  return !name.empty() && is_prometheus_name_start(name.front(), false) &&
         std::all_of(name.begin(), name.end(), [](char c) { return is_prometheus_name_char(c, false); });
}

}  // namespace solscope::core
