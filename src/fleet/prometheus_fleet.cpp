#include "fleet/prometheus_fleet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "core/device_info.hpp"
#include "core/iteration.hpp"
#include "core/units.hpp"
#include "fleet/detail/fleet_iteration.hpp"
#include "fleet/detail/fleet_queries.hpp"
#include "fleet/detail/prom_api.hpp"
#include "fleet/fleet_math.hpp"

namespace solscope::fleet {
namespace {

using core::ErrorCode;

auto now_ns() -> std::int64_t {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// The series of one GPU, step by step, while an answer is read.
struct GpuSteps {
  GpuKey key;
  std::int64_t newest_ns = 0;  ///< newest point of any series: its labels name the GPU
  std::vector<HistoryPoint> points;
};

/// The time window of one snapshot.
struct Window {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::int64_t step_ns = 0;
  [[nodiscard]] auto steps() const -> std::size_t {
    return static_cast<std::size_t>((end_ns - start_ns) / step_ns) + 1;
  }
};

auto label(const PromSeries& s, const std::string& name) -> std::string {
  auto it = s.labels.find(name);
  return it == s.labels.end() ? std::string() : it->second;
}

/// A label's whole non-negative number below 2^31, or -1.
auto label_number(const std::string& text) -> std::int32_t {
  std::int32_t v = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc{} && end == text.data() + text.size() && v >= 0 ? v : -1;
}

/// core::device_label of the GPU or MIG instance that dcgm-exporter's labels name.
auto gpu_label(const std::string& gpu, const std::string& profile, const std::string& instance)
    -> std::string {
  core::DeviceInfo d;
  d.gpu_index = label_number(gpu);
  if (d.gpu_index < 0) return "GPU " + gpu;
  d.mig_profile = profile;
  d.mig_instance_id = instance.empty() ? -1 : label_number(instance);
  return core::device_label(d);
}

auto key_of(const PromSeries& s) -> GpuKey {
  GpuKey key;
  key.host = label(s, "host");
  key.gpu = label(s, "gpu");
  if (const auto profile = label(s, "GPU_I_PROFILE"); !profile.empty()) {
    key.gpu += "/" + profile + "/" + label(s, "GPU_I_ID");
  }
  key.label = gpu_label(label(s, "gpu"), label(s, "GPU_I_PROFILE"), label(s, "GPU_I_ID"));
  key.uuid = label(s, "UUID");
  key.model_name = label(s, "modelName");
  const auto pod = label(s, "pod");
  const auto ns = label(s, "namespace");
  if (!pod.empty()) key.job = ns.empty() ? pod : ns + "/" + pod;
  return key;
}

/// Puts one figure's series into the per-GPU step vectors. Several series of one GPU (a pod that changed in
/// the window) are merged: the larger value at a step, the labels of the newest.
void place(const std::vector<PromSeries>& answer, Figure figure, const Window& w,
           std::map<std::pair<std::string, std::string>, GpuSteps>& gpus) {
  for (const auto& s : answer) {
    GpuKey key = key_of(s);
    auto& g = gpus[{key.host, key.gpu}];
    if (g.points.empty()) {
      g.points.resize(w.steps());
      for (std::size_t i = 0; i < g.points.size(); ++i) {
        g.points[i].t_ns = w.start_ns + static_cast<std::int64_t>(i) * w.step_ns;
      }
    }
    for (const auto& [t, v] : s.points) {
      if (t < w.start_ns || t > w.end_ns || std::isnan(v)) continue;
      const auto i = static_cast<std::size_t>((t - w.start_ns + w.step_ns / 2) / w.step_ns);
      if (i >= g.points.size()) continue;
      double& slot = figure == Figure::ComputeSol  ? g.points[i].compute_sol_pct
                     : figure == Figure::MemorySol ? g.points[i].memory_sol_pct
                                                   : g.points[i].gpu_util_pct;
      slot = std::isnan(slot) ? v : std::max(slot, v);
      if (t >= g.newest_ns) {
        g.newest_ns = t;
        g.key = key;
      }
    }
    if (g.key.host.empty()) g.key = key;
  }
}

using RowMap = std::map<std::pair<std::string, std::string>, FleetRow>;

class PrometheusFleet final : public FleetProvider {
 public:
  PrometheusFleet(std::unique_ptr<net::RemoteHttp> http, FleetQuery query)
      : http_(std::move(http)), query_(std::move(query)), inner_(selector_inner(query_.selector)) {}

  auto snapshot() -> core::Result<FleetSnapshot> override {
    const Window w = window();
    FleetSnapshot snap;
    snap.window_start_ns = w.start_ns;
    snap.window_end_ns = w.end_ns;
    snap.step_ns = w.step_ns;
    snap.source = describe();
    std::size_t budget = query_.gpu_limit;
    std::size_t counted = 0;
    std::map<std::pair<std::string, std::string>, FleetRow> rows;
    for (SeriesKind kind : {SeriesKind::Solscope, SeriesKind::Dcgm}) {
      auto n = count_gpus(kind, w);
      if (!n) return core::propagate(n);
      counted += *n;
      if (*n == 0 || budget == 0) continue;
      std::string restriction;
      if (*n > budget) {
        auto r = host_restriction(kind, w, budget);
        if (!r) return core::propagate(r);
        restriction = std::move(*r);
      }
      auto kind_rows = query_.aggregate_on_server ? read_aggregates(kind, w, restriction)
                                                  : read_step_series(kind, w, restriction);
      if (!kind_rows) return core::propagate(kind_rows);
      if (kind == SeriesKind::Solscope) {
        if (auto read = read_iterations(w, restriction, *kind_rows); !read) return core::propagate(read);
      }
      std::size_t added = 0;
      for (auto& [k, row] : *kind_rows) {
        if (rows.contains(k) || added >= budget) continue;  // solscope's own series first
        rows.emplace(k, std::move(row));
        ++added;
      }
      budget -= added;
    }
    for (auto& [k, row] : rows) snap.rows.push_back(std::move(row));
    if (counted > query_.gpu_limit) {
      snap.notes.push_back(fmt::format("series limit {} reached: {} GPUs not shown", query_.gpu_limit,
                                       counted - snap.rows.size()));
    }
    mark_stragglers(snap.rows);
    sort_rows(snap.rows, SortKey::Host);
    snap.job_label = query_.job_label;
    snap.iteration_groups = mark_iteration_stragglers(snap.rows, query_.job_label);
    return snap;
  }

  auto history(const GpuKey& key) -> core::Result<GpuHistory> override {
    const Window w = window();
    const std::string restriction = gpu_restriction(key);
    for (SeriesKind kind : {SeriesKind::Solscope, SeriesKind::Dcgm}) {
      auto gpus = read_kind(kind, w, restriction);
      if (!gpus) return core::propagate(gpus);
      auto it = gpus->find({key.host, key.gpu});
      if (it == gpus->end()) continue;
      GpuHistory h;
      h.key = it->second.key;
      h.series = kind;
      h.points = std::move(it->second.points);
      return h;
    }
    return core::fail(ErrorCode::NotFound,
                      fmt::format("no series for GPU {} of host {} in {}", key.gpu, key.host, describe()),
                      "the GPU may have stopped reporting; widen --since or refresh the fleet");
  }

  auto workloads(GroupBy by) -> core::Result<WorkloadRollup> override {
    const Window w = window();
    WorkloadRollup rollup;
    rollup.by = by;
    rollup.window_start_ns = w.start_ns;
    rollup.window_end_ns = w.end_ns;
    rollup.step_ns = w.step_ns;
    rollup.source = describe();
    // Each query's value lands in one field of its group's sums (kWorkloadQueries' order is WorkloadQuery's).
    static constexpr double WorkloadSums::*kFields[kWorkloadQueryCount] = {&WorkloadSums::gpus,
                                                                           &WorkloadSums::allocated_seconds,
                                                                           &WorkloadSums::idle_seconds,
                                                                           &WorkloadSums::busy_idle_steps,
                                                                           &WorkloadSums::compute_sol_sum_pct,
                                                                           &WorkloadSums::compute_sol_steps};
    std::map<std::string, WorkloadSums> groups;
    for (std::size_t q = 0; q < kWorkloadQueryCount; ++q) {
      const auto query = static_cast<WorkloadQuery>(q);
      auto answer = instant(workload_query_name(query),
                            workload_expr(query, by, inner_, w.end_ns - w.start_ns, w.step_ns), w);
      if (!answer) return core::propagate(answer);
      for (const auto& s : *answer) {
        std::string group = group_of(by, s.labels);
        if (s.points.empty() || group.empty()) continue;
        groups[std::move(group)].*kFields[q] = s.points.front().second;
      }
    }
    for (const auto& [group, sums] : groups) rollup.rows.push_back(workload_row(group, sums, w.step_ns));
    sort_workloads(rollup.rows);
    if (rollup.rows.empty()) {
      rollup.notes.push_back(fmt::format(
          "no {} series with a {} label in the window: the nodes' solscope serve labels a GPU's workload "
          "only where it can read it (docs/fleet.md \"Workloads\")",
          kWorkloadSecondsMetric, group_labels(by)));
    }
    return rollup;
  }

  auto describe() const -> std::string override {
    return fmt::format("prometheus at {}, selector {}, window {}s", http_->describe(),
                       inner_.empty() ? std::string("(none)") : "{" + inner_ + "}",
                       query_.window_ns / core::kNsPerS);
  }

 private:
  auto window() const -> Window {
    Window w;
    w.end_ns = query_.end_ns != 0 ? query_.end_ns : now_ns();
    w.end_ns -= w.end_ns % 1'000'000;  // Prometheus' millisecond resolution
    w.step_ns = step_for_window_ns(query_.window_ns);
    w.start_ns = w.end_ns - (query_.window_ns / w.step_ns) * w.step_ns;
    return w;
  }

  auto get(const std::string& what, const PromCall& call) -> core::Result<std::vector<PromSeries>> {
    auto response = http_->post_form(call.path, call.form);
    if (!response) return core::fail(call_error(response.error(), what));
    return parse_prom_answer(*response, what, http_->describe(), inner_);
  }

  /// The client's error of one query, said for the fleet: a stop as it is, a too-large answer as such, any
  /// other failure as "did not answer" with the client's reason.
  auto call_error(const core::Error& e, const std::string& what) const -> core::Error {
    if (e.code == ErrorCode::Aborted) return e;
    if (e.code == ErrorCode::ResourceExhausted) {
      return core::Error{e.code,
                         fmt::format("the answer of Prometheus at {} to the {} query is too large: {}",
                                     http_->describe(), what, e.message),
                         "narrow --selector or --since, or lower --gpu-limit"};
    }
    // The client names the URL; say which query and why, shorter.
    const auto colon = e.message.rfind(": ");
    const std::string why = colon == std::string::npos ? e.message : e.message.substr(colon + 2);
    return core::Error{
        e.code, fmt::format("Prometheus at {} did not answer the {} query: {}", http_->describe(), what, why),
        e.hint};
  }

  auto instant(const std::string& what, const std::string& expr, const Window& w)
      -> core::Result<std::vector<PromSeries>> {
    return get(what, instant_call(expr, w.end_ns, query_.query_timeout_s));
  }

  auto count_gpus(SeriesKind kind, const Window& w) -> core::Result<std::size_t> {
    auto answer = instant("GPU count", count_expr(kind, inner_, w.end_ns - w.start_ns), w);
    if (!answer) return core::propagate(answer);
    if (answer->empty() || answer->front().points.empty()) return std::size_t{0};
    return gpu_count(answer->front().points.front().second, "GPU count", http_->describe());
  }

  /// Matchers keeping whole hosts, in natural order, while their GPUs fit in `budget`.
  auto host_restriction(SeriesKind kind, const Window& w, std::size_t budget) -> core::Result<std::string> {
    auto answer = instant("GPUs per host", host_count_expr(kind, inner_, w.end_ns - w.start_ns), w);
    if (!answer) return core::propagate(answer);
    std::vector<std::pair<std::string, std::size_t>> hosts;
    for (const auto& s : *answer) {
      auto n =
          gpu_count(s.points.empty() ? 0.0 : s.points.front().second, "GPUs per host", http_->describe());
      if (!n) return core::propagate(n);
      hosts.emplace_back(label(s, "host"), *n);
    }
    std::sort(hosts.begin(), hosts.end(),
              [](const auto& a, const auto& b) { return natural_less(a.first, b.first); });
    std::vector<std::string> kept;
    std::size_t used = 0;
    for (const auto& [host, n] : hosts) {
      if (used + n > budget) break;
      used += n;
      kept.push_back(host);
    }
    return host_matchers(kept);
  }

  /// The rows of `kind` from every GPU's step series, reduced here (window_figures()).
  auto read_step_series(SeriesKind kind, const Window& w, const std::string& restriction)
      -> core::Result<RowMap> {
    auto gpus = read_kind(kind, w, restriction);
    if (!gpus) return core::propagate(gpus);
    RowMap rows;
    for (auto& [k, g] : *gpus) {
      FleetRow& row = rows[k];
      row.key = std::move(g.key);
      row.series = kind;
      apply_figures(window_figures(g.points, w.step_ns), row);
    }
    return rows;
  }

  /// The rows of `kind` from Prometheus' own reduction of the window: 7 instant queries of one value per GPU.
  auto read_aggregates(SeriesKind kind, const Window& w, const std::string& restriction)
      -> core::Result<RowMap> {
    const std::int64_t span = w.end_ns - w.start_ns;
    const std::string c = figure_expr(kind, Figure::ComputeSol, inner_, restriction);
    const std::string m = figure_expr(kind, Figure::MemorySol, inner_, restriction);
    const std::string u = figure_expr(kind, Figure::GpuUtil, inner_, restriction);
    const double step_hours =
        static_cast<double>(w.step_ns) / static_cast<double>(core::kNsPerS) / core::kSecondsPerHour;
    const struct {
      const char* what;
      std::string expr;
      double FleetRow::*field;
      double scale;
    } queries[] = {
        {"Compute SOL now", last_expr(c, span, w.step_ns), &FleetRow::compute_sol_pct, 1.0},
        {"Compute SOL mean", mean_expr(c, span, w.step_ns), &FleetRow::compute_sol_mean_pct, 1.0},
        {"Memory SOL now", last_expr(m, span, w.step_ns), &FleetRow::memory_sol_pct, 1.0},
        {"Memory SOL mean", mean_expr(m, span, w.step_ns), &FleetRow::memory_sol_mean_pct, 1.0},
        {"utilization now", last_expr(u, span, w.step_ns), &FleetRow::gpu_util_pct, 1.0},
        {"utilization mean", mean_expr(u, span, w.step_ns), &FleetRow::gpu_util_mean_pct, 1.0},
        {"busy-idle", busy_idle_steps_expr(u, c, span, w.step_ns), &FleetRow::busy_idle_gpu_hours,
         step_hours},
    };
    RowMap rows;
    for (const auto& q : queries) {
      auto answer = instant(q.what, q.expr, w);
      if (!answer) return core::propagate(answer);
      for (const auto& s : *answer) {
        if (s.points.empty()) continue;
        GpuKey key = key_of(s);
        FleetRow& row = rows[{key.host, key.gpu}];
        if (row.key.host.empty()) {
          row.key = std::move(key);
          row.series = kind;
        }
        row.*(q.field) = s.points.front().second * q.scale;
      }
    }
    return rows;
  }

  /// solscope's iteration figures (3 instant queries: seconds, compute ratio, exposed communication ratio;
  /// one value per periodic GPU; reduced by Prometheus in both modes) into `rows`; a GPU with iteration
  /// series but no other row gets one.
  auto read_iterations(const Window& w, const std::string& restriction, RowMap& rows) -> core::Result<void> {
    const struct {
      const char* what;
      std::string_view metric;
      double FleetRow::*field;
    } queries[] = {
        {"iteration seconds", core::kPromIterationSecondsName, &FleetRow::iteration_s},
        {"iteration compute", core::kPromIterationComputeName, &FleetRow::compute_ratio},
        {"exposed communication", core::kPromIterationExposedName, &FleetRow::exposed_communication_ratio}};
    for (const auto& q : queries) {
      auto answer = instant(
          q.what,
          iteration_expr(q.metric, inner_, restriction, query_.job_label, w.end_ns - w.start_ns, w.step_ns),
          w);
      if (!answer) return core::propagate(answer);
      for (const auto& s : *answer) {
        if (s.points.empty() || std::isnan(s.points.front().second)) continue;
        GpuKey key = key_of(s);
        if (key.gpu.empty()) continue;  // a series that names no GPU
        FleetRow& row = rows[{key.host, key.gpu}];
        if (row.key.host.empty()) {
          row.key = std::move(key);
          row.series = SeriesKind::Solscope;
        }
        row.*(q.field) = s.points.front().second;
        if (!query_.job_label.empty()) row.job_label_value = label(s, query_.job_label);
      }
    }
    return {};
  }

  auto read_kind(SeriesKind kind, const Window& w, const std::string& restriction)
      -> core::Result<std::map<std::pair<std::string, std::string>, GpuSteps>> {
    std::map<std::pair<std::string, std::string>, GpuSteps> gpus;
    for (Figure f : {Figure::ComputeSol, Figure::MemorySol, Figure::GpuUtil}) {
      const std::string expr = figure_expr(kind, f, inner_, restriction);
      auto answer =
          get(figure_name(f), range_call(expr, w.start_ns, w.end_ns, w.step_ns, query_.query_timeout_s));
      if (!answer) return core::propagate(answer);
      place(*answer, f, w, gpus);
    }
    return gpus;
  }

  std::unique_ptr<net::RemoteHttp> http_;
  FleetQuery query_;
  std::string inner_;
};

}  // namespace

auto make_prometheus_fleet(std::unique_ptr<net::RemoteHttp> http, FleetQuery query)
    -> std::unique_ptr<FleetProvider> {
  return std::make_unique<PrometheusFleet>(std::move(http), std::move(query));
}

auto make_prometheus_fleet(const net::RemoteEndpoint& endpoint, FleetQuery query)
    -> core::Result<std::unique_ptr<FleetProvider>> {
  if (query.window_ns <= 0) {
    return core::fail(ErrorCode::InvalidArgument, "the fleet window must be longer than 0 s",
                      "give --since 1h");
  }
  if (query.gpu_limit == 0) {
    return core::fail(ErrorCode::InvalidArgument, "the fleet GPU limit must be at least 1");
  }
  if (!query.job_label.empty()) {
    if (auto ok = check_job_label(query.job_label); !ok) return core::propagate(ok);
  }
  // Wait for an answer longer than Prometheus may work on it (its `timeout=`), so that a slow query ends
  // with Prometheus' own error rather than a dropped connection.
  net::RemoteEndpoint client = endpoint;
  client.read_timeout_s = std::max(client.read_timeout_s, query.query_timeout_s + kReadTimeoutMarginS);
  client.total_timeout_s = std::max(client.total_timeout_s, client.read_timeout_s);
  auto http = net::make_remote_http(client);
  if (!http) return core::propagate(http);
  return make_prometheus_fleet(std::move(*http), std::move(query));
}

}  // namespace solscope::fleet
