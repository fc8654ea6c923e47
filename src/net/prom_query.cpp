#include "net/prom_query.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "net/time_limits.hpp"
#include "wire/json_fields.hpp"
#include "wire/json_text.hpp"

namespace solscope::net {
namespace {

using Json = nlohmann::json;

constexpr auto kMaxUnixSeconds = static_cast<double>(kLatestUnixSeconds);

/// A value string as Prometheus writes it: "NaN", "+Inf", "-Inf", or a whole finite decimal number (an
/// optional leading '+' allowed).
auto parse_value(std::string_view text) -> std::optional<double> {
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "+Inf") return std::numeric_limits<double>::infinity();
  if (text == "-Inf") return -std::numeric_limits<double>::infinity();
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

/// One point [unix seconds, "value"] as (Unix ns at ms resolution, value); nullopt when it does not read.
auto parse_point(const Json& pair) -> std::optional<std::pair<std::int64_t, double>> {
  if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number() || !pair[1].is_string())
    return std::nullopt;
  const double time_s = pair[0].get<double>();
  if (!std::isfinite(time_s) || time_s < 0 || time_s >= kMaxUnixSeconds) return std::nullopt;
  const auto value = parse_value(pair[1].get_ref<const std::string&>());
  if (!value) return std::nullopt;
  return std::pair{static_cast<std::int64_t>(std::llround(time_s * 1e3)) * 1'000'000, *value};
}

/// Appends the points of `pairs` (one point when `one`) to `out` until the first that does not read.
void read_points(const Json& pairs, bool one, PromSeries& out) {
  out.sent_points = one ? 1 : pairs.size();
  out.points.reserve(out.sent_points);
  for (std::size_t i = 0; i < out.sent_points; ++i) {
    const Json& pair = one ? pairs : pairs[i];
    auto point = parse_point(pair);
    if (!point) {
      out.bad_point = PromBadPoint{i, wire::json_text(pair)};
      return;
    }
    out.points.push_back(*point);
  }
}

auto read_series(const Json& item) -> PromSeries {
  PromSeries out;
  if (!item.is_object()) return out;
  if (const auto m = item.find("metric"); m != item.end() && m->is_object()) {
    out.has_metric = true;
    for (const auto& [k, v] : m->items()) {
      if (v.is_string()) out.labels.emplace(k, v.get<std::string>());
    }
  }
  if (const auto vs = item.find("values"); vs != item.end() && vs->is_array()) {
    out.form = PromSeriesForm::Range;
    read_points(*vs, false, out);
  } else if (const auto v = item.find("value"); v != item.end()) {
    out.form = PromSeriesForm::Instant;
    read_points(*v, true, out);
  }
  return out;
}

auto optional_string(const Json& object, std::string_view key) -> std::optional<std::string> {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

auto syntax_error(const Json::parse_error& e, std::string_view text) -> core::Error {
  const std::size_t offset = std::min(e.byte > 0 ? e.byte - 1 : 0, text.size());
  const std::string_view before = text.substr(0, offset);
  const std::size_t line = static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n')) + 1;
  const std::size_t last_nl = before.rfind('\n');
  const std::size_t column = offset - (last_nl == std::string_view::npos ? 0 : last_nl + 1) + 1;
  std::string what = e.what();
  if (const auto at = what.find("parse error"); at != std::string::npos) what = what.substr(at);
  return core::Error{
      core::ErrorCode::DataLoss,
      "line " + std::to_string(line) + ": column " + std::to_string(column) + ": invalid JSON (" + what + ")",
      {}};
}

}  // namespace

auto url_encode(std::string_view text) -> std::string {
  std::string out;
  out.reserve(text.size() * 3);
  for (unsigned char c : text) {
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.' || c == '~';
    if (keep) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

auto prom_time(std::int64_t t_ns) -> std::string {
  const std::int64_t ms = t_ns / 1'000'000;
  return fmt::format("{}.{:03}", ms / 1000, ms % 1000);
}

auto parse_prom_query_answer(std::string_view body) -> core::Result<PromAnswer> {
  Json doc;
  try {
    doc = Json::parse(body.begin(), body.end());
  } catch (const Json::parse_error& e) {
    return core::fail(syntax_error(e, body));
  } catch (const Json::exception& e) {
    return core::fail(core::ErrorCode::DataLoss, std::string("invalid JSON: ") + e.what());
  }
  PromAnswer out;
  if (!doc.is_object()) return out;
  out.status = optional_string(doc, "status");
  out.error_type = optional_string(doc, "errorType");
  out.error = optional_string(doc, "error");
  const auto data = doc.find("data");
  if (data == doc.end() || !data->is_object()) return out;
  out.has_data = true;
  out.result_type = wire::string_field(*data, "resultType");
  const auto result = data->find("result");
  if (result == data->end() || !result->is_array()) return out;
  out.has_result = true;
  out.series.reserve(result->size());
  for (const Json& item : *result) out.series.push_back(read_series(item));
  return out;
}

}  // namespace solscope::net
