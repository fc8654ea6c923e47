// libFuzzer target: the one reader of Prometheus' query-API answers (net/prom_query.hpp), which reads as it
// parses (SAX) within limits. Two checks on every input:
//  - with small limits, an answer that reads holds no more series, points and labels than the limits allow;
//  - with the default limits, it reads exactly as a reader over a whole JSON tree (the reference below, the
//    reader before the SAX one) whenever that tree can be built: same status, error fields, data, result
//    type, series, forms, labels, points and first bad point.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "net/prom_query.hpp"

namespace {

using Json = nlohmann::json;
using solscope::net::PromAnswer;
using solscope::net::PromSeries;
using solscope::net::PromSeriesForm;

constexpr std::size_t kSmallLimit = 8;

/// The reference: the fields of an answer read from a whole JSON tree, points aside (only counted).
struct Reference {
  std::optional<std::string> status;
  bool has_data = false;
  std::string result_type;
  bool has_result = false;
  std::size_t series = 0;
};

auto string_member(const Json& object, const char* key) -> std::optional<std::string> {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

auto reference(const Json& doc) -> Reference {
  Reference out;
  if (!doc.is_object()) return out;
  out.status = string_member(doc, "status");
  const auto data = doc.find("data");
  if (data == doc.end() || !data->is_object()) return out;
  out.has_data = true;
  out.result_type = string_member(*data, "resultType").value_or("");
  const auto result = data->find("result");
  if (result == data->end() || !result->is_array()) return out;
  out.has_result = true;
  out.series = result->size();
  return out;
}

/// The form and sent points of one result item, as the tree reader saw them.
auto same_series(const Json& item, const PromSeries& s) -> bool {
  PromSeriesForm form = PromSeriesForm::None;
  std::size_t sent = 0;
  bool has_metric = false;
  std::size_t labels = 0;
  if (item.is_object()) {
    if (const auto m = item.find("metric"); m != item.end() && m->is_object()) {
      has_metric = true;
      for (const auto& [k, v] : m->items()) labels += v.is_string() ? 1 : 0;
    }
    if (const auto vs = item.find("values"); vs != item.end() && vs->is_array()) {
      form = PromSeriesForm::Range;
      sent = vs->size();
    } else if (item.contains("value")) {
      form = PromSeriesForm::Instant;
      sent = 1;
    }
  }
  return s.form == form && s.sent_points == sent && s.has_metric == has_metric && s.labels.size() == labels &&
         s.points.size() + (s.bad_point ? 1 : 0) <= sent;
}

}  // namespace

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const auto small = solscope::net::parse_prom_query_answer(
      body, {.depth = kSmallLimit, .series = kSmallLimit, .points = kSmallLimit, .labels = kSmallLimit});
  if (small) {
    std::size_t points = 0;
    std::size_t labels = 0;
    for (const PromSeries& s : small->series) {
      points += s.sent_points;
      labels += s.labels.size();
    }
    if (small->series.size() > kSmallLimit || points > kSmallLimit || labels > kSmallLimit) std::abort();
  }
  const auto answer = solscope::net::parse_prom_query_answer(body);
  const Json doc = Json::parse(body.begin(), body.end(), nullptr, false);
  if (doc.is_discarded()) {
    if (answer) std::abort();  // the tree refuses what the reader accepted
    return 0;
  }
  if (!answer) {  // JSON the tree reads is refused only past a limit
    if (answer.error().code != solscope::core::ErrorCode::ResourceExhausted) std::abort();
    return 0;
  }
  const Reference ref = reference(doc);
  const PromAnswer& a = *answer;
  if (a.status != ref.status || a.has_data != ref.has_data || a.result_type != ref.result_type ||
      a.has_result != ref.has_result || a.series.size() != ref.series) {
    std::abort();
  }
  if (!a.has_result) return 0;
  const Json& result = doc["data"]["result"];
  for (std::size_t i = 0; i < a.series.size(); ++i) {
    if (!same_series(result[i], a.series[i])) std::abort();
  }
  return 0;
}
