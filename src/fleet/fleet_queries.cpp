#include "fleet/detail/fleet_queries.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>

#include "core/dcgm_fields.hpp"
#include "core/enum_table.hpp"
#include "core/metric_catalog.hpp"
#include "core/units.hpp"
#include "fleet/detail/prom_api.hpp"
#include "fleet/fleet_math.hpp"
#include "net/prom_query.hpp"

namespace solscope::fleet {
namespace {

/// The pipes of DCGM's Compute SOL (core/dcgm_fields.hpp): tensor, FP64, FP32 (the FMA pipe), FP16.
constexpr std::array kDcgmComputePipes{core::MetricId::TensorPipe, core::MetricId::Fp64Pipe,
                                       core::MetricId::FmaPipe, core::MetricId::Fp16Pipe};

/// The DCGM field that fills `metric` (every metric the fleet asks for has one: core/dcgm_fields.cpp).
auto dcgm(core::MetricId metric) -> core::DcgmField {
  return core::dcgm_field_by_metric(metric).value_or(core::DcgmField{});
}

/// `__name__=~"A|B|C|D"` over the DCGM names of kDcgmComputePipes.
auto dcgm_pipes_matcher() -> std::string {
  std::string names;
  for (const core::MetricId m : kDcgmComputePipes)
    names += (names.empty() ? "" : "|") + std::string(dcgm(m).name);
  return fmt::format(R"(__name__=~"{}")", names);
}

auto join(std::string_view a, std::string_view b) -> std::string {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  return fmt::format("{},{}", a, b);
}

/// The metric that says a GPU of `kind` exists.
auto presence_metric(SeriesKind kind) -> std::string_view {
  return kind == SeriesKind::Solscope ? core::metric_def(core::MetricId::GpuUtil).prom_name
                                      : dcgm(core::MetricId::GpuUtil).name;
}

/// True when `label` is one of kKeyLabels.
auto kept_label(std::string_view label) -> bool {
  std::string_view rest = kKeyLabels;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(", ");
    if (rest.substr(0, comma) == label) return true;
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 2);
  }
  return false;
}

auto per_gpu_in_window(SeriesKind kind, std::string_view inner, std::int64_t window_ns) -> std::string {
  const auto window_s = std::max<std::int64_t>(1, window_ns / core::kNsPerS);
  return fmt::format("max by ({}) ({})", kKeyLabels,
                     with_host_label(fmt::format("max_over_time({}[{}s])",
                                                 with_matchers(presence_metric(kind), inner), window_s)));
}

}  // namespace

constexpr core::EnumNames<Figure, 3> kFigureNames({"Compute SOL", "Memory SOL", "utilization"}, "?");

auto figure_name(Figure figure) -> std::string {
  return std::string(kFigureNames(figure));
}

auto figure_expr(SeriesKind kind, Figure figure, std::string_view inner, std::string_view restriction)
    -> std::string {
  const std::string matchers = join(inner, restriction);
  std::string selector;
  bool ratio = true;
  if (kind == SeriesKind::Solscope) {
    const std::string_view name = figure == Figure::ComputeSol  ? core::kPromComputeSolName
                                  : figure == Figure::MemorySol ? core::kPromMemorySolName
                                                                : presence_metric(kind);
    selector = with_matchers(name, matchers);
  } else if (figure == Figure::ComputeSol) {
    selector = with_matchers("", join(dcgm_pipes_matcher(), matchers));
  } else if (figure == Figure::MemorySol) {
    selector = with_matchers(dcgm(core::MetricId::DramThroughput).name, matchers);
  } else {
    selector = with_matchers(dcgm(core::MetricId::GpuUtil).name, matchers);
    ratio = dcgm(core::MetricId::GpuUtil).scale != 1.0;  // dcgm-exporter's utilization is already a percent
  }
  const std::string agg = fmt::format("max by ({}) ({})", kKeyLabels, with_host_label(selector));
  return ratio ? "100 * " + agg : agg;
}

namespace {
auto subquery(std::string_view fn, std::string_view expr, std::int64_t window_ns, std::int64_t step_ns)
    -> std::string {
  return fmt::format("{}(({})[{}s:{}s])", fn, expr, std::max<std::int64_t>(1, window_ns / core::kNsPerS),
                     std::max<std::int64_t>(1, step_ns / core::kNsPerS));
}
}  // namespace

auto last_expr(std::string_view figure, std::int64_t window_ns, std::int64_t step_ns) -> std::string {
  return subquery("last_over_time", figure, window_ns, step_ns);
}

auto mean_expr(std::string_view figure, std::int64_t window_ns, std::int64_t step_ns) -> std::string {
  return subquery("avg_over_time", figure, window_ns, step_ns);
}

auto iteration_expr(std::string_view metric, std::string_view inner, std::string_view restriction,
                    std::string_view job_label, std::int64_t window_ns, std::int64_t step_ns) -> std::string {
  std::string by(kKeyLabels);
  if (!job_label.empty() && !kept_label(job_label)) by += fmt::format(", {}", job_label);
  return mean_expr(
      fmt::format("max by ({}) ({})", by, with_host_label(with_matchers(metric, inner, restriction))),
      window_ns, step_ns);
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

constexpr core::EnumNames<WorkloadQuery, kWorkloadQueryCount> kWorkloadQueryNames(
    {"GPUs per workload", "allocated GPU-seconds", "idle GPU-seconds", "busy-idle steps per workload",
     "Compute SOL sum per workload", "Compute SOL steps per workload"},
    "?");

auto workload_query_name(WorkloadQuery query) -> std::string {
  return std::string(kWorkloadQueryNames(query));
}

namespace {

/// The labels that name one GPU (or MIG instance) in solscope's series.
constexpr std::string_view kGpuLabels = "hostname, gpu, UUID, GPU_I_PROFILE, GPU_I_ID";

/// The label that names a group (the pod's for Pod: a pod names the group).
auto group_label(GroupBy by) -> std::string_view {
  switch (by) {
    case GroupBy::Namespace:
      return core::kNamespaceLabel;
    case GroupBy::Pod:
      return core::kPodLabel;
    case GroupBy::Job:
      break;
  }
  return core::kHpcJobLabel;
}

/// The matcher that requires the group's own label.
auto group_present(GroupBy by) -> std::string {
  return fmt::format(R"({}!="")", group_label(by));
}

/// One figure of solscope's per-GPU series in percent, one series per (group, GPU).
auto group_figure(Figure figure, GroupBy by, std::string_view matchers) -> std::string {
  const std::string_view name =
      figure == Figure::ComputeSol ? core::kPromComputeSolName : presence_metric(SeriesKind::Solscope);
  return fmt::format("100 * max by ({}, {}) ({})", group_labels(by), kGpuLabels,
                     with_matchers(name, matchers));
}

}  // namespace

auto group_labels(GroupBy by) -> std::string {
  return by == GroupBy::Pod ? fmt::format("{}, {}", core::kNamespaceLabel, core::kPodLabel)
                            : std::string(group_label(by));
}

auto workload_expr(WorkloadQuery query, GroupBy by, std::string_view inner, std::int64_t window_ns,
                   std::int64_t step_ns) -> std::string {
  const std::string matchers = join(inner, group_present(by));
  const std::string labels = group_labels(by);
  const auto window_s = std::max<std::int64_t>(1, window_ns / core::kNsPerS);
  const auto increase = [&](std::string_view extra) {
    return fmt::format("increase({}[{}s])", with_matchers(kWorkloadSecondsMetric, join(matchers, extra)),
                       window_s);
  };
  const std::string compute = group_figure(Figure::ComputeSol, by, matchers);
  switch (query) {
    case WorkloadQuery::Gpus:
      return fmt::format("count by ({0}) (sum by ({0}, {1}) ({2}) > 0)", labels, kGpuLabels, increase(""));
    case WorkloadQuery::AllocatedSeconds:
      return fmt::format("sum by ({}) ({})", labels, increase(""));
    case WorkloadQuery::IdleSeconds:
      return fmt::format("sum by ({}) ({})", labels, increase(R"(bound="idle")"));
    case WorkloadQuery::BusyIdleSteps:
      return fmt::format(
          "sum by ({}) ({})", labels,
          busy_idle_steps_expr(group_figure(Figure::GpuUtil, by, matchers), compute, window_ns, step_ns));
    case WorkloadQuery::ComputeSolSum:
      return fmt::format("sum by ({}) ({})", labels, subquery("sum_over_time", compute, window_ns, step_ns));
    case WorkloadQuery::ComputeSolSteps:
      break;
  }
  return fmt::format("sum by ({}) ({})", labels, subquery("count_over_time", compute, window_ns, step_ns));
}

auto group_of(GroupBy by, const std::map<std::string, std::string>& labels) -> std::string {
  const auto get = [&labels](std::string_view name) {
    const auto it = labels.find(std::string(name));
    return it == labels.end() ? std::string() : it->second;
  };
  switch (by) {
    case GroupBy::Pod: {
      const std::string pod = get(core::kPodLabel);
      const std::string ns = get(core::kNamespaceLabel);
      return pod.empty() || ns.empty() ? pod : ns + "/" + pod;
    }
    case GroupBy::Namespace:
    case GroupBy::Job:
      break;
  }
  return get(group_label(by));
}

auto instant_call(std::string_view expr, std::int64_t time_ns, double timeout_s) -> PromCall {
  return {"/api/v1/query", fmt::format("query={}&time={}&timeout={}s", net::url_encode(expr),
                                       net::prom_time(time_ns), static_cast<long>(std::ceil(timeout_s)))};
}

auto range_call(std::string_view expr, std::int64_t start_ns, std::int64_t end_ns, std::int64_t step_ns,
                double timeout_s) -> PromCall {
  return {"/api/v1/query_range",
          fmt::format("query={}&start={}&end={}&step={}s&timeout={}s", net::url_encode(expr),
                      net::prom_time(start_ns), net::prom_time(end_ns), step_ns / 1'000'000'000,
                      static_cast<long>(std::ceil(timeout_s)))};
}

}  // namespace solscope::fleet
