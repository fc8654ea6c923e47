#include "fleet/fleet_queries.hpp"

#include <fmt/format.h>

#include <cmath>

#include "fleet/fleet_math.hpp"
#include "fleet/prom_api.hpp"

namespace solscope::fleet {
namespace {

constexpr std::string_view kDcgmPipes = R"(__name__=~"DCGM_FI_PROF_PIPE_(TENSOR|FP64|FP32|FP16)_ACTIVE")";

auto join(std::string_view a, std::string_view b) -> std::string {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  return fmt::format("{},{}", a, b);
}

/// The metric that says a GPU of `kind` exists.
auto presence_metric(SeriesKind kind) -> std::string_view {
  return kind == SeriesKind::Solscope ? "solscope_gpu_utilization_ratio" : "DCGM_FI_DEV_GPU_UTIL";
}

auto per_gpu_in_window(SeriesKind kind, std::string_view inner, std::int64_t window_ns) -> std::string {
  const auto window_s = std::max<std::int64_t>(1, window_ns / 1'000'000'000);
  return fmt::format("max by ({}) ({})", kKeyLabels,
                     with_host_label(fmt::format("max_over_time({}[{}s])",
                                                 with_matchers(presence_metric(kind), inner), window_s)));
}

}  // namespace

auto figure_name(Figure figure) -> std::string {
  switch (figure) {
    case Figure::ComputeSol:
      return "Compute SOL";
    case Figure::MemorySol:
      return "Memory SOL";
    case Figure::GpuUtil:
      return "utilization";
  }
  return "?";
}

auto figure_expr(SeriesKind kind, Figure figure, std::string_view inner, std::string_view restriction)
    -> std::string {
  const std::string matchers = join(inner, restriction);
  std::string selector;
  bool ratio = true;
  if (kind == SeriesKind::Solscope) {
    const std::string_view name = figure == Figure::ComputeSol  ? "solscope_compute_sol_ratio"
                                  : figure == Figure::MemorySol ? "solscope_memory_sol_ratio"
                                                                : "solscope_gpu_utilization_ratio";
    selector = with_matchers(name, matchers);
  } else if (figure == Figure::ComputeSol) {
    selector = with_matchers("", join(kDcgmPipes, matchers));
  } else if (figure == Figure::MemorySol) {
    selector = with_matchers("DCGM_FI_PROF_DRAM_ACTIVE", matchers);
  } else {
    selector = with_matchers("DCGM_FI_DEV_GPU_UTIL", matchers);
    ratio = false;  // dcgm-exporter's utilization is already a percent
  }
  const std::string agg = fmt::format("max by ({}) ({})", kKeyLabels, with_host_label(selector));
  return ratio ? "100 * " + agg : agg;
}

namespace {
auto subquery(std::string_view fn, std::string_view expr, std::int64_t window_ns, std::int64_t step_ns)
    -> std::string {
  return fmt::format("{}(({})[{}s:{}s])", fn, expr, std::max<std::int64_t>(1, window_ns / 1'000'000'000),
                     std::max<std::int64_t>(1, step_ns / 1'000'000'000));
}
}  // namespace

auto last_expr(std::string_view figure, std::int64_t window_ns, std::int64_t step_ns) -> std::string {
  return subquery("last_over_time", figure, window_ns, step_ns);
}

auto mean_expr(std::string_view figure, std::int64_t window_ns, std::int64_t step_ns) -> std::string {
  return subquery("avg_over_time", figure, window_ns, step_ns);
}

auto busy_idle_steps_expr(std::string_view util, std::string_view compute, std::int64_t window_ns,
                          std::int64_t step_ns) -> std::string {
  const std::string both =
      fmt::format("({} > {}) and ({} < {})", util, kBusyUtilPct, compute, kIdleComputeSolPct);
  return subquery("count_over_time", both, window_ns, step_ns);
}

auto count_expr(SeriesKind kind, std::string_view inner, std::int64_t window_ns) -> std::string {
  return fmt::format("count({})", per_gpu_in_window(kind, inner, window_ns));
}

auto host_count_expr(SeriesKind kind, std::string_view inner, std::int64_t window_ns) -> std::string {
  return fmt::format("count by (host) ({})", per_gpu_in_window(kind, inner, window_ns));
}

auto regex_literal(std::string_view text) -> std::string {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += R"(\\\\)";  // a regex backslash, escaped for the string literal
      continue;
    }
    if (std::string_view(".^$|?*+()[]{}").find(c) != std::string_view::npos) out += R"(\\)";
    if (c == '"') {
      out += R"(\")";
      continue;
    }
    out += c;
  }
  return out;
}

auto host_matchers(const std::vector<std::string>& hosts) -> std::string {
  std::string alternatives;
  for (const auto& h : hosts) alternatives += regex_literal(h) + "|";
  return fmt::format(R"(Hostname=~"{0}",hostname=~"{0}")", alternatives);
}

auto gpu_restriction(const GpuKey& key) -> std::string {
  const std::string index = key.gpu.substr(0, key.gpu.find('/'));
  return fmt::format(R"({},gpu="{}")", host_matchers({key.host}), regex_literal(index));
}

auto instant_path(std::string_view expr, std::int64_t time_ns, double timeout_s) -> std::string {
  return fmt::format("/api/v1/query?query={}&time={}&timeout={}s", url_encode(expr), prom_time(time_ns),
                     static_cast<long>(std::ceil(timeout_s)));
}

auto range_path(std::string_view expr, std::int64_t start_ns, std::int64_t end_ns, std::int64_t step_ns,
                double timeout_s) -> std::string {
  return fmt::format("/api/v1/query_range?query={}&start={}&end={}&step={}s&timeout={}s", url_encode(expr),
                     prom_time(start_ns), prom_time(end_ns), step_ns / 1'000'000'000,
                     static_cast<long>(std::ceil(timeout_s)));
}

}  // namespace solscope::fleet
