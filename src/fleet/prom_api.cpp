#include "fleet/detail/prom_api.hpp"

#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "net/prom_query.hpp"
#include "wire/json_fields.hpp"

namespace solscope::fleet {
namespace {

using core::ErrorCode;

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

constexpr std::string_view kNarrowHint =
    "narrow the fleet: a --selector that picks fewer series, a shorter --since, or a lower --gpu-limit";

/// The hint of Prometheus' error of type `type`: a bad_data error points to --selector only when one was
/// given (its matchers are the only PromQL of the query the user wrote).
auto bad_data_hint(std::string_view type, std::string_view selector) -> std::string {
  if (type != "bad_data") return "narrow --since or --selector, or check the Prometheus server";
  if (!selector.empty()) {
    return fmt::format("check --selector {{{}}}: a PromQL label matcher list, e.g. '{{cluster=\"a\"}}'",
                       selector);
  }
  return "no --selector was given, so the query is solscope's own: check that the server answers PromQL as "
         "Prometheus 2.x or newer does, and report the message above if it does";
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

auto parse_prom_answer(const net::HttpResponse& response, std::string_view what, std::string_view origin,
                       std::string_view selector) -> core::Result<std::vector<PromSeries>> {
  if (response.status == 401 || response.status == 403) {
    return core::fail(
        ErrorCode::PermissionDenied,
        fmt::format("Prometheus at {} refused the {} query (HTTP {})", origin, what, response.status),
        std::string(kTokenHint));
  }
  auto answer = net::parse_prom_query_answer(response.body);
  if (!answer && answer.error().code == ErrorCode::ResourceExhausted) {
    return core::fail(ErrorCode::ResourceExhausted,
                      fmt::format("the answer of {} to the {} query is too large to read: {}", origin, what,
                                  answer.error().message),
                      std::string(kNarrowHint));
  }
  if (!answer || !answer->status) {
    return core::fail(ErrorCode::DataLoss,
                      fmt::format("the answer of {} to the {} query is not Prometheus' API (HTTP {}: \"{}\")",
                                  origin, what, response.status, excerpt(response.body)),
                      std::string(kUrlHint));
  }
  if (*answer->status != "success") {
    const std::string type = answer->error_type.value_or("unknown");
    const std::string message = answer->error.value_or("no message");
    return core::fail(
        error_code_for(type),
        fmt::format("Prometheus at {} failed the {} query ({}): {}", origin, what, type, message),
        bad_data_hint(type, selector));
  }
  if (!answer->has_result) {
    return core::fail(ErrorCode::DataLoss,
                      fmt::format("the answer of {} to the {} query has no data.result", origin, what),
                      std::string(kUrlHint));
  }
  std::vector<PromSeries> out;
  out.reserve(answer->series.size());
  for (net::PromSeries& s : answer->series) {
    if (s.form == net::PromSeriesForm::None || s.bad_point) {
      return core::fail(
          ErrorCode::DataLoss,
          fmt::format("the answer of {} to the {} query holds a series that is not [time, value] pairs",
                      origin, what),
          std::string(kUrlHint));
    }
    out.push_back(PromSeries{std::move(s.labels), std::move(s.points)});
  }
  return out;
}

auto gpu_count(double v, std::string_view what, std::string_view origin) -> core::Result<std::size_t> {
  if (!std::isfinite(v) || v < 0.0 || v > kMaxGpuCount || std::floor(v) != v) {
    return core::fail(
        ErrorCode::DataLoss,
        fmt::format("Prometheus at {} answered the {} query with {}, which is not a count of GPUs "
                    "(a whole number from 0 to {})",
                    origin, what, v, kMaxGpuCount),
        "check that the URL is Prometheus' and that its GPU series are sane");
  }
  return static_cast<std::size_t>(v);
}

}  // namespace solscope::fleet
