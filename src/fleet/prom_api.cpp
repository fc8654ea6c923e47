#include "fleet/prom_api.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "wire/json_fields.hpp"

namespace solscope::fleet {
namespace {

using core::ErrorCode;
using nlohmann::json;

constexpr std::string_view kTokenHint =
    "give a bearer token Prometheus accepts with --prometheus-token-file FILE (a file holding the token)";
constexpr std::string_view kUrlHint =
    "check that --prometheus names a Prometheus server, e.g. http://prometheus:9090 (with its path prefix, "
    "if any)";
constexpr std::size_t kExcerptBytes = 120;

auto excerpt(std::string_view body) -> std::string {
  std::string out;
  for (char c : body.substr(0, kExcerptBytes)) out += (c >= 0x20 && c < 0x7f) ? c : ' ';
  return out;
}

auto parse_value(const json& v) -> double {
  if (!v.is_string()) return std::numeric_limits<double>::quiet_NaN();
  const auto& s = v.get_ref<const std::string&>();
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (s == "+Inf") return std::numeric_limits<double>::infinity();
  if (s == "-Inf") return -std::numeric_limits<double>::infinity();
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  return end == s.c_str() ? std::numeric_limits<double>::quiet_NaN() : d;
}

auto parse_point(const json& pair, std::pair<std::int64_t, double>& out) -> bool {
  if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number()) return false;
  out = {static_cast<std::int64_t>(std::llround(pair[0].get<double>() * 1e3)) * 1'000'000,
         parse_value(pair[1])};
  return true;
}

auto parse_series(const json& item, PromSeries& out) -> bool {
  if (!item.is_object()) return false;
  if (auto m = item.find("metric"); m != item.end() && m->is_object()) {
    for (const auto& [k, v] : m->items()) {
      if (v.is_string()) out.labels.emplace(k, v.get<std::string>());
    }
  }
  std::pair<std::int64_t, double> p;
  if (auto vs = item.find("values"); vs != item.end() && vs->is_array()) {
    out.points.reserve(vs->size());
    for (const auto& pair : *vs) {
      if (!parse_point(pair, p)) return false;
      out.points.push_back(p);
    }
    return true;
  }
  if (auto v = item.find("value"); v != item.end()) {
    if (!parse_point(*v, p)) return false;
    out.points.push_back(p);
    return true;
  }
  return false;
}

auto error_code_for(std::string_view type) -> ErrorCode {
  return type == "bad_data" ? ErrorCode::InvalidArgument : ErrorCode::Unavailable;
}

}  // namespace

auto selector_inner(std::string_view selector) -> std::string {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!selector.empty() && blank(selector.front())) selector.remove_prefix(1);
  while (!selector.empty() && blank(selector.back())) selector.remove_suffix(1);
  if (selector.size() >= 2 && selector.front() == '{' && selector.back() == '}') {
    selector = selector.substr(1, selector.size() - 2);
  }
  return std::string(selector);
}

auto with_matchers(std::string_view name, std::string_view inner, std::string_view extra) -> std::string {
  std::string matchers(inner);
  if (!extra.empty()) {
    if (!matchers.empty()) matchers += ',';
    matchers += extra;
  }
  if (matchers.empty()) return std::string(name);
  return fmt::format("{}{{{}}}", name, matchers);
}

auto with_host_label(std::string_view expr) -> std::string {
  return fmt::format(
      R"q(label_replace(label_replace(label_replace({}, "host", "$1", "instance", "(.+)"), "host", "$1", )q"
      R"q("hostname", "(.+)"), "host", "$1", "Hostname", "(.+)"))q",
      expr);
}

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

auto parse_prom_answer(const workload::HttpResponse& response, std::string_view what, std::string_view origin)
    -> core::Result<std::vector<PromSeries>> {
  if (response.status == 401 || response.status == 403) {
    return core::fail(
        ErrorCode::PermissionDenied,
        fmt::format("Prometheus at {} refused the {} query (HTTP {})", origin, what, response.status),
        std::string(kTokenHint));
  }
  json doc = json::parse(response.body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("status") || !doc["status"].is_string()) {
    return core::fail(ErrorCode::DataLoss,
                      fmt::format("the answer of {} to the {} query is not Prometheus' API (HTTP {}: \"{}\")",
                                  origin, what, response.status, excerpt(response.body)),
                      std::string(kUrlHint));
  }
  if (doc["status"] != "success") {
    const std::string type = wire::string_field(doc, "errorType", "unknown");
    const std::string message = wire::string_field(doc, "error", "no message");
    return core::fail(
        error_code_for(type),
        fmt::format("Prometheus at {} failed the {} query ({}): {}", origin, what, type, message),
        type == "bad_data" ? "check --selector: a PromQL label matcher list, e.g. '{cluster=\"a\"}'"
                           : "narrow --since or --selector, or check the Prometheus server");
  }
  const auto data = doc.find("data");
  if (data == doc.end() || !data->is_object() || !data->contains("result") || !(*data)["result"].is_array()) {
    return core::fail(ErrorCode::DataLoss,
                      fmt::format("the answer of {} to the {} query has no data.result", origin, what),
                      std::string(kUrlHint));
  }
  std::vector<PromSeries> out;
  const auto& result = (*data)["result"];
  out.reserve(result.size());
  for (const auto& item : result) {
    PromSeries s;
    if (!parse_series(item, s)) {
      return core::fail(
          ErrorCode::DataLoss,
          fmt::format("the answer of {} to the {} query holds a series that is not [time, value] pairs",
                      origin, what),
          std::string(kUrlHint));
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace solscope::fleet
