// The Prometheus fleet reader (fleet/prometheus_fleet.hpp, prom_api.hpp, fleet_queries.hpp) against a stub
// client answering canned API JSON by the query it is sent. All figures are synthetic.
#include "fleet/prometheus_fleet.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fleet/detail/fleet_queries.hpp"
#include "fleet/detail/prom_api.hpp"
#include "net/prom_query.hpp"

namespace solscope::fleet {
namespace {

using core::ErrorCode;
using net::HttpResponse;

constexpr std::int64_t kEndNs = 1'700'000'000'000'000'000;
constexpr std::int64_t kWindowNs = 3'600'000'000'000;  // 1 h: step 15 s, 241 steps

auto url_decode(std::string_view s) -> std::string {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

/// A stub Prometheus: a handler from (path, decoded query) to a response; it records every request.
class StubHttp final : public net::RemoteHttp {
 public:
  using Handler = std::function<HttpResponse(const std::string& path, const std::string& query)>;
  StubHttp(Handler handler, std::vector<std::string>* log) : handler_(std::move(handler)), log_(log) {}
  /// The fleet reader sends every query as a POST; it is logged and answered as the GET of path?form.
  auto post(std::string_view path, std::string_view form, std::string_view /*content_type*/)
      -> core::Result<HttpResponse> override {
    return get(std::string(path) + "?" + std::string(form));
  }
  auto get(std::string_view path_and_query) -> core::Result<HttpResponse> override {
    const std::string full = url_decode(path_and_query);
    if (log_ != nullptr) log_->push_back(full);
    const auto q = full.find("query=");
    const auto amp = full.find("&", q);
    return handler_(std::string(path_and_query.substr(0, path_and_query.find('?'))),
                    full.substr(q + 6, amp == std::string::npos ? std::string::npos : amp - q - 6));
  }
  auto describe() const -> std::string override { return "http://stub:9090"; }

 private:
  Handler handler_;
  std::vector<std::string>* log_;
};

auto vector_answer(const std::vector<std::pair<std::string, double>>& rows) -> std::string {
  std::string items;
  for (const auto& [labels, v] : rows) {
    items += fmt::format(R"({}{{"metric":{{{}}},"value":[1700000000,"{}"]}})", items.empty() ? "" : ",",
                         labels, v);
  }
  return fmt::format(R"({{"status":"success","data":{{"resultType":"vector","result":[{}]}}}})", items);
}

/// A matrix with one series per label set, every step of the window at `value(step)`.
auto matrix_answer(const std::vector<std::pair<std::string, std::function<double(int)>>>& series)
    -> std::string {
  std::string items;
  for (const auto& [labels, value] : series) {
    std::string values;
    for (int i = 0; i <= 240; ++i) {
      const double t = (kEndNs - kWindowNs) / 1e9 + 15.0 * i;
      values += fmt::format("{}[{:.3f},\"{}\"]", i == 0 ? "" : ",", t, value(i));
    }
    items += fmt::format(R"({}{{"metric":{{{}}},"values":[{}]}})", items.empty() ? "" : ",", labels, values);
  }
  return fmt::format(R"({{"status":"success","data":{{"resultType":"matrix","result":[{}]}}}})", items);
}

auto ok(std::string body) -> HttpResponse {
  return HttpResponse{.status = 200, .body = std::move(body)};
}

/// Host "sol": solscope series for GPUs 0 and 1; host "dcgm": dcgm-exporter series for GPU 0 (a pod) and a
/// MIG slice of GPU 3; and dcgm-exporter series for sol/0 too, which must lose to solscope's.
auto fleet_handler(const std::string& path, const std::string& query) -> HttpResponse {
  const bool sol = query.find("solscope_") != std::string::npos;
  if (path == "/api/v1/query") {
    if (sol) return ok(vector_answer({{"", 2}}));
    return ok(vector_answer({{"", 3}}));
  }
  const std::string sol0 = R"("host":"sol","gpu":"0","UUID":"GPU-s0","modelName":"NVIDIA H100 80GB HBM3")";
  const std::string sol1 = R"("host":"sol","gpu":"1","UUID":"GPU-s1")";
  const std::string d0 = R"("host":"dcgm","gpu":"0","namespace":"ml","pod":"train-1")";
  const std::string mig = R"("host":"dcgm","gpu":"3","GPU_I_PROFILE":"1g.10gb","GPU_I_ID":"2")";
  const std::string dup = R"("host":"sol","gpu":"0")";
  if (sol) {
    if (query.find("compute_sol") != std::string::npos) {
      return ok(matrix_answer(
          {{sol0, [](int) { return 40.0; }}, {sol1, [](int i) { return i < 120 ? 10.0 : 30.0; }}}));
    }
    if (query.find("memory_sol") != std::string::npos) {
      return ok(matrix_answer({{sol0, [](int) { return 70.0; }}, {sol1, [](int) { return 5.0; }}}));
    }
    return ok(matrix_answer({{sol0, [](int) { return 95.0; }}, {sol1, [](int) { return 90.0; }}}));
  }
  if (query.find("PIPE") != std::string::npos) {
    return ok(matrix_answer(
        {{d0, [](int) { return 12.5; }}, {mig, [](int) { return 50.0; }}, {dup, [](int) { return 99.0; }}}));
  }
  if (query.find("DRAM") != std::string::npos) {
    return ok(matrix_answer({{d0, [](int) { return 25.0; }}, {mig, [](int) { return 1.0; }}}));
  }
  return ok(matrix_answer(
      {{d0, [](int) { return 100.0; }}, {mig, [](int) { return 20.0; }}, {dup, [](int) { return 1.0; }}}));
}

/// The step-series path (query_range answers reduced here); aggregates() below is the server-side path.
auto query(std::string selector = {}) -> FleetQuery {
  return FleetQuery{.selector = std::move(selector),
                    .window_ns = kWindowNs,
                    .end_ns = kEndNs,
                    .aggregate_on_server = false};
}

TEST(PrometheusFleet, reads_solscope_series_first_and_dcgm_for_the_rest) {
  std::vector<std::string> log;
  auto fleet = make_prometheus_fleet(std::make_unique<StubHttp>(fleet_handler, &log), query());
  auto snap = fleet->snapshot();
  ASSERT_TRUE(snap.has_value()) << snap.error().describe();
  ASSERT_EQ(snap->rows.size(), 4u);
  EXPECT_EQ(snap->step_ns, 15'000'000'000);
  EXPECT_EQ(snap->window_end_ns - snap->window_start_ns, kWindowNs);
  // Sorted by host then GPU: dcgm/0, dcgm/3/1g.10gb/2, sol/0, sol/1.
  const auto& d0 = snap->rows[0];
  EXPECT_EQ(d0.key.host, "dcgm");
  EXPECT_EQ(d0.key.job, "ml/train-1");
  EXPECT_EQ(d0.series, SeriesKind::Dcgm);
  EXPECT_DOUBLE_EQ(d0.compute_sol_mean_pct, 12.5);
  EXPECT_DOUBLE_EQ(d0.memory_sol_pct, 25);
  EXPECT_DOUBLE_EQ(d0.gpu_util_mean_pct, 100);
  EXPECT_DOUBLE_EQ(d0.busy_idle_gpu_hours, 241 * 15.0 / 3600);  // every step: util 100 > 80, SOL 12.5 < 20
  EXPECT_EQ(snap->rows[1].key.gpu, "3/1g.10gb/2");
  EXPECT_EQ(snap->rows[1].key.label, "GPU 3 \u00b7 MIG 1g.10gb #2");  // issue 23: named like every device
  EXPECT_EQ(d0.key.label, "GPU 0");
  const auto& s0 = snap->rows[2];
  EXPECT_EQ(s0.series, SeriesKind::Solscope);  // the dcgm duplicate of sol/0 (99 %) lost
  EXPECT_DOUBLE_EQ(s0.compute_sol_pct, 40);
  EXPECT_EQ(s0.key.model_name, "NVIDIA H100 80GB HBM3");
  const auto& s1 = snap->rows[3];
  EXPECT_DOUBLE_EQ(s1.compute_sol_pct, 30);  // newest
  EXPECT_DOUBLE_EQ(s1.compute_sol_mean_pct, (120 * 10.0 + 121 * 30.0) / 241);
  EXPECT_DOUBLE_EQ(s1.busy_idle_gpu_hours, 120 * 15.0 / 3600);  // the 120 steps at 10 %
  // Host sol: means 40 and ~20.04, median ~30.02: gap of sol/1 ~ -9.98 (not beyond 10 points).
  EXPECT_NEAR(s1.straggler_gap_pct, -(40 - s1.compute_sol_mean_pct) / 2, 1e-9);
  EXPECT_FALSE(s1.straggler);
  EXPECT_TRUE(snap->notes.empty());
  EXPECT_NE(snap->source.find("http://stub:9090"), std::string::npos);
  // 2 counts + 2 x 3 range queries + solscope's 3 iteration queries (issue 25: seconds, compute ratio,
  // exposed communication ratio), each bounded by step and timeout.
  ASSERT_EQ(log.size(), 11u);
  int iteration_queries = 0;
  for (const auto& q : log) {
    for (const char* name : {"(solscope_iteration_seconds,", "(solscope_iteration_compute_ratio,",
                             "(solscope_iteration_exposed_communication_ratio,"}) {
      iteration_queries += q.find(name) != std::string::npos ? 1 : 0;
    }
  }
  EXPECT_EQ(iteration_queries, 3);
  for (const auto& q : log) EXPECT_NE(q.find("&timeout=20s"), std::string::npos) << q;
  EXPECT_NE(log[2].find("&step=15s"), std::string::npos);
  EXPECT_NE(log[2].find("&end=1700000000.000"), std::string::npos);
}

/// Prometheus' reduction of the window: one value per GPU and query (last, mean, busy-idle steps).
auto aggregate_handler(const std::string& path, const std::string& q) -> HttpResponse {
  if (path != "/api/v1/query") return HttpResponse{.status = 404, .body = "not found"};
  const bool sol = q.find("solscope_") != std::string::npos;
  if (q.rfind("count(", 0) == 0) return ok(vector_answer({{"", sol ? 1.0 : 1.0}}));
  const std::string gpu =
      sol ? R"("host":"s","gpu":"0","UUID":"GPU-s")" : R"("host":"d","gpu":"1","pod":"p")";
  const double base = sol ? 10 : 20;
  if (q.rfind("count_over_time", 0) == 0) return ok(vector_answer({{gpu, sol ? 8.0 : 0.0}}));
  const bool mean = q.rfind("avg_over_time", 0) == 0;
  const double figure = q.find("compute_sol") != std::string::npos || q.find("PIPE") != std::string::npos ? 1
                        : q.find("memory_sol") != std::string::npos || q.find("DRAM") != std::string::npos
                            ? 2
                            : 3;
  return ok(vector_answer({{gpu, base * figure + (mean ? 0.5 : 0)}}));
}

TEST(PrometheusFleet, reads_the_window_figures_prometheus_reduced) {
  std::vector<std::string> log;
  FleetQuery fq = query();
  fq.aggregate_on_server = true;
  auto fleet = make_prometheus_fleet(std::make_unique<StubHttp>(aggregate_handler, &log), fq);
  auto snap = fleet->snapshot();
  ASSERT_TRUE(snap.has_value()) << snap.error().describe();
  ASSERT_EQ(snap->rows.size(), 2u);
  const auto& d = snap->rows[0];
  EXPECT_EQ(d.key.host, "d");
  EXPECT_EQ(d.key.job, "p");
  EXPECT_EQ(d.series, SeriesKind::Dcgm);
  EXPECT_DOUBLE_EQ(d.compute_sol_pct, 20);
  EXPECT_DOUBLE_EQ(d.compute_sol_mean_pct, 20.5);
  EXPECT_DOUBLE_EQ(d.memory_sol_pct, 40);
  EXPECT_DOUBLE_EQ(d.gpu_util_mean_pct, 60.5);
  EXPECT_DOUBLE_EQ(d.busy_idle_gpu_hours, 0);
  const auto& s = snap->rows[1];
  EXPECT_EQ(s.series, SeriesKind::Solscope);
  EXPECT_DOUBLE_EQ(s.memory_sol_mean_pct, 20.5);
  EXPECT_DOUBLE_EQ(s.busy_idle_gpu_hours, 8 * 15.0 / 3600);  // 8 steps of 15 s
  // 2 counts + 2 x 7 instant queries + solscope's 3 iteration queries (issue 25); no query_range.
  ASSERT_EQ(log.size(), 19u);
  bool busy = false;
  for (const auto& q : log) {
    EXPECT_EQ(q.rfind("/api/v1/query?", 0), 0u) << q;
    EXPECT_NE(q.find("&time=1700000000.000&timeout=20s"), std::string::npos) << q;
    busy |= q.find("count_over_time(((100 * max by") != std::string::npos &&
            q.find(" > 80) and (") != std::string::npos && q.find(" < 20))[3600s:15s])") != std::string::npos;
  }
  EXPECT_TRUE(busy);
}

TEST(PrometheusFleet, merges_the_user_selector_into_every_query) {
  std::vector<std::string> log;
  auto fleet =
      make_prometheus_fleet(std::make_unique<StubHttp>(fleet_handler, &log), query(R"( {cluster="a"} )"));
  ASSERT_TRUE(fleet->snapshot().has_value());
  for (const auto& q : log) {
    const bool pipes = q.find("__name__") != std::string::npos;
    EXPECT_TRUE(q.find(R"(_ratio{cluster="a"})") != std::string::npos ||
                q.find(R"(_seconds{cluster="a"})") != std::string::npos ||
                q.find(R"(UTIL{cluster="a"})") != std::string::npos ||
                q.find(R"(DRAM_ACTIVE{cluster="a"})") != std::string::npos ||
                (pipes && q.find(R"(_ACTIVE",cluster="a"})") != std::string::npos))
        << q;
  }
  EXPECT_NE(fleet->describe().find(R"({cluster="a"})"), std::string::npos);
}

TEST(PrometheusFleet, keeps_the_gpu_limit_by_whole_hosts_and_says_how_many_were_cut) {
  std::vector<std::string> log;
  auto handler = [](const std::string& path, const std::string& q) -> HttpResponse {
    if (q.find("solscope_") != std::string::npos) return ok(vector_answer({}));
    if (path == "/api/v1/query" && q.rfind("count(", 0) == 0) return ok(vector_answer({{"", 5}}));
    if (path == "/api/v1/query")
      return ok(vector_answer({{R"("host":"n1")", 2}, {R"("host":"n2")", 2}, {R"("host":"n10")", 1}}));
    if (q.find(R"(Hostname=~"n1|")") == std::string::npos) return ok(vector_answer({}));  // not narrowed
    return ok(matrix_answer({{R"("host":"n1","gpu":"0")", [](int) { return 1.0; }},
                             {R"("host":"n1","gpu":"1")", [](int) { return 1.0; }}}));
  };
  FleetQuery fq = query();
  fq.gpu_limit = 3;
  auto fleet = make_prometheus_fleet(std::make_unique<StubHttp>(handler, &log), fq);
  auto snap = fleet->snapshot();
  ASSERT_TRUE(snap.has_value()) << snap.error().describe();
  // Hosts in natural order n1 (2), n2 (2), n10 (1): n1 fits, n1+n2 = 4 > 3 stops there.
  ASSERT_EQ(snap->notes.size(), 1u);
  EXPECT_EQ(snap->notes[0], "series limit 3 reached: 3 GPUs not shown");
  EXPECT_EQ(snap->rows.size(), 2u);
  bool restricted = false;
  for (const auto& q : log) restricted |= q.find(R"(Hostname=~"n1|",hostname=~"n1|")") != std::string::npos;
  EXPECT_TRUE(restricted);
}

TEST(PrometheusFleet, history_of_one_gpu_is_narrowed_to_its_host_and_index) {
  std::vector<std::string> log;
  auto fleet = make_prometheus_fleet(std::make_unique<StubHttp>(fleet_handler, &log), query());
  GpuKey key;
  key.host = "dcgm";
  key.gpu = "0";
  auto h = fleet->history(key);
  ASSERT_TRUE(h.has_value()) << h.error().describe();
  EXPECT_EQ(h->series, SeriesKind::Dcgm);  // no solscope series for dcgm/0
  ASSERT_EQ(h->points.size(), 241u);
  EXPECT_DOUBLE_EQ(h->points[0].compute_sol_pct, 12.5);
  EXPECT_EQ(h->points[1].t_ns - h->points[0].t_ns, 15'000'000'000);
  EXPECT_NE(log[0].find(R"(Hostname=~"dcgm|",hostname=~"dcgm|",gpu="0")"), std::string::npos) << log[0];
  key.host = "nowhere";
  auto missing = fleet->history(key);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, ErrorCode::NotFound);
}

TEST(PrometheusFleet, maps_prometheus_errors_to_codes_with_its_own_message) {
  auto with = [](HttpResponse r) {
    return make_prometheus_fleet(
        std::make_unique<StubHttp>([r](const std::string&, const std::string&) { return r; }, nullptr),
        query());
  };
  auto denied = with({401, "Unauthorized"})->snapshot();
  ASSERT_FALSE(denied.has_value());
  EXPECT_EQ(denied.error().code, ErrorCode::PermissionDenied);
  EXPECT_NE(denied.error().hint.find("--prometheus-token-file"), std::string::npos);
  auto bad =
      with(
          {400, R"({"status":"error","errorType":"bad_data","error":"1:27: parse error: unexpected \"}\""})"})
          ->snapshot();
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::InvalidArgument);
  EXPECT_NE(bad.error().message.find(R"(1:27: parse error: unexpected "}")"), std::string::npos);
  // No --selector was given: the hint does not blame one (before: "check --selector" either way).
  EXPECT_EQ(bad.error().hint.find("check --selector"), std::string::npos) << bad.error().hint;
  EXPECT_NE(bad.error().hint.find("no --selector was given"), std::string::npos) << bad.error().hint;
  auto bad_selector =
      make_prometheus_fleet(
          std::make_unique<StubHttp>(
              [](const std::string&, const std::string&) {
                return HttpResponse{400, R"({"status":"error","errorType":"bad_data","error":"1:2: x"})"};
              },
              nullptr),
          query(R"({cluster=~"a})"))
          ->snapshot();
  ASSERT_FALSE(bad_selector.has_value());
  EXPECT_NE(bad_selector.error().hint.find(R"(check --selector {cluster=~"a})"), std::string::npos)
      << bad_selector.error().hint;
  // An answer past a limit of the reader says which, not "not Prometheus' API" (before: 60 MB of '[' took
  // 4.66 GB and then failed as invalid JSON).
  auto deep = with({200, R"({"status":"success","data":)" + std::string(1'000'000, '[')})->snapshot();
  ASSERT_FALSE(deep.has_value());
  EXPECT_EQ(deep.error().code, ErrorCode::ResourceExhausted);
  EXPECT_NE(deep.error().message.find("is too large to read: the answer nests arrays and objects deeper than "
                                      "32 levels"),
            std::string::npos)
      << deep.error().message;
  auto html = with({200, "<html><body>Grafana</body></html>"})->snapshot();
  ASSERT_FALSE(html.has_value());
  EXPECT_EQ(html.error().code, ErrorCode::DataLoss);
  auto timeout =
      with({503, R"({"status":"error","errorType":"timeout","error":"query timed out"})"})->snapshot();
  ASSERT_FALSE(timeout.has_value());
  EXPECT_EQ(timeout.error().code, ErrorCode::Unavailable);
  auto shape = with({200, R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[1]}]}})"})
                   ->snapshot();
  ASSERT_FALSE(shape.has_value());
  EXPECT_EQ(shape.error().code, ErrorCode::DataLoss);
  // An error answer whose fields are not strings is still an error with a message, never an exception.
  auto odd = with({422, R"({"status":"error","errorType":{"x":1},"error":[2]})"})->snapshot();
  ASSERT_FALSE(odd.has_value());
  EXPECT_NE(odd.error().message.find("(unknown): no message"), std::string::npos) << odd.error().message;
}

TEST(PrometheusFleet, refuses_a_gpu_count_that_is_not_a_count) {
  // Before: 1e300, -5, NaN, infinity and 2.5 all read as "0 GPUs" (or a truncated count), without a word.
  for (const double bad : {1e300, -5.0, 2.5, kMaxGpuCount + 1}) {
    for (const bool per_host : {false, true}) {
      auto handler = [bad, per_host](const std::string& path, const std::string& q) -> HttpResponse {
        if (q.find("solscope_") != std::string::npos) return ok(vector_answer({}));
        if (path == "/api/v1/query" && q.rfind("count(", 0) == 0)
          return ok(vector_answer({{"", per_host ? 5 : bad}}));
        if (path == "/api/v1/query")
          return ok(vector_answer({{R"("host":"n1")", bad}, {R"("host":"n2")", 2}}));
        return ok(matrix_answer({}));
      };
      FleetQuery fq = query();
      fq.gpu_limit = 3;
      auto snap = make_prometheus_fleet(std::make_unique<StubHttp>(handler, nullptr), fq)->snapshot();
      ASSERT_FALSE(snap.has_value()) << bad << " per host: " << per_host;
      EXPECT_EQ(snap.error().code, ErrorCode::DataLoss);
      EXPECT_NE(snap.error().message.find(fmt::format("with {}, which is not a count of GPUs", bad)),
                std::string::npos)
          << snap.error().message;
    }
  }
  EXPECT_FALSE(gpu_count(std::nan(""), "GPU count", "x").has_value());
  EXPECT_FALSE(gpu_count(INFINITY, "GPU count", "x").has_value());
  EXPECT_EQ(gpu_count(0.0, "GPU count", "x").value(), 0u);
  EXPECT_EQ(gpu_count(16384.0, "GPU count", "x").value(), 16384u);
  EXPECT_EQ(gpu_count(kMaxGpuCount, "GPU count", "x").value(), 16'777'216u);
}

/// Issue 24: Prometheus' answers to the roll-up's 6 queries for two namespaces (SYNTHETIC): team-a has 2
/// GPUs, 7200 GPU-s allocated, 1800 idle, 60 busy-idle steps, Compute SOL 40 % on 482 steps; team-b 1 GPU,
/// 3600, 2700, 120 steps, 10 % on 241 steps.
auto workload_handler(const std::string& path, const std::string& q) -> HttpResponse {
  if (path != "/api/v1/query") return HttpResponse{.status = 404, .body = "not found"};
  const auto two = [](double a, double b) {
    return ok(vector_answer({{R"("namespace":"team-a")", a}, {R"("namespace":"team-b")", b}}));
  };
  if (q.rfind("count by (namespace)", 0) == 0) return two(2, 1);
  if (q.find(R"(bound="idle")") != std::string::npos) return two(1800, 2700);
  if (q.find("(increase(") != std::string::npos) return two(7200, 3600);
  if (q.find("count_over_time(((") != std::string::npos) return two(60, 120);
  if (q.find("sum_over_time(") != std::string::npos) return two(482 * 40.0, 241 * 10.0);
  if (q.find("count_over_time((100") != std::string::npos) return two(482, 241);
  return ok(vector_answer({}));
}

TEST(PrometheusFleet, rolls_gpus_up_by_namespace_most_wasted_first) {
  std::vector<std::string> log;
  auto fleet = make_prometheus_fleet(std::make_unique<StubHttp>(workload_handler, &log), query());
  auto rollup = fleet->workloads(GroupBy::Namespace);
  ASSERT_TRUE(rollup.has_value()) << rollup.error().describe();
  EXPECT_EQ(rollup->by, GroupBy::Namespace);
  EXPECT_EQ(rollup->step_ns, 15'000'000'000);
  EXPECT_EQ(rollup->window_end_ns - rollup->window_start_ns, kWindowNs);
  ASSERT_EQ(rollup->rows.size(), 2u);
  const auto& b = rollup->rows[0];  // 0.75 + 0.5 = 1.25 wasted GPU-hours against team-a's 0.5 + 0.25
  EXPECT_EQ(b.group, "team-b");
  EXPECT_EQ(b.gpus, 1u);
  EXPECT_DOUBLE_EQ(b.allocated_gpu_hours, 1.0);
  EXPECT_DOUBLE_EQ(b.idle_gpu_hours, 0.75);
  EXPECT_DOUBLE_EQ(b.busy_idle_gpu_hours, 0.5);
  EXPECT_DOUBLE_EQ(b.wasted_gpu_hours, 1.25);
  EXPECT_DOUBLE_EQ(b.compute_sol_mean_pct, 10.0);
  const auto& a = rollup->rows[1];
  EXPECT_EQ(a.group, "team-a");
  EXPECT_EQ(a.gpus, 2u);
  EXPECT_DOUBLE_EQ(a.allocated_gpu_hours, 2.0);
  EXPECT_DOUBLE_EQ(a.idle_gpu_hours, 0.5);
  EXPECT_DOUBLE_EQ(a.busy_idle_gpu_hours, 0.25);
  EXPECT_DOUBLE_EQ(a.compute_sol_mean_pct, 40.0);
  EXPECT_TRUE(rollup->notes.empty());
  // 6 instant queries at the window's end, each bounded by Prometheus' timeout.
  ASSERT_EQ(log.size(), 6u);
  for (const auto& q : log) {
    EXPECT_EQ(q.rfind("/api/v1/query?", 0), 0u) << q;
    EXPECT_NE(q.find("&time=1700000000.000&timeout=20s"), std::string::npos) << q;
  }
  // An empty answer says why in a note instead of an empty table.
  auto none = make_prometheus_fleet(
                  std::make_unique<StubHttp>(
                      [](const std::string&, const std::string&) { return ok(vector_answer({})); }, nullptr),
                  query())
                  ->workloads(GroupBy::Job);
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->rows.empty());
  ASSERT_EQ(none->notes.size(), 1u);
  EXPECT_NE(none->notes[0].find("no solscope_workload_gpu_seconds_total series with a hpc_job label"),
            std::string::npos)
      << none->notes[0];
}

TEST(PromApi, workload_queries_group_solscope_series_by_the_dcgm_exporter_labels) {
  constexpr std::int64_t kStep = 15'000'000'000;
  const std::string gpu = "hostname, gpu, UUID, GPU_I_PROFILE, GPU_I_ID";
  EXPECT_EQ(workload_expr(WorkloadQuery::Gpus, GroupBy::Namespace, "", kWindowNs, kStep),
            "count by (namespace) (sum by (namespace, " + gpu +
                R"() (increase(solscope_workload_gpu_seconds_total{namespace!=""}[3600s])) > 0))");
  EXPECT_EQ(
      workload_expr(WorkloadQuery::AllocatedSeconds, GroupBy::Pod, R"(cluster="a")", kWindowNs, kStep),
      R"(sum by (namespace, pod) (increase(solscope_workload_gpu_seconds_total{cluster="a",pod!=""}[3600s])))");
  EXPECT_EQ(
      workload_expr(WorkloadQuery::IdleSeconds, GroupBy::Job, "", kWindowNs, kStep),
      R"(sum by (hpc_job) (increase(solscope_workload_gpu_seconds_total{hpc_job!="",bound="idle"}[3600s])))");
  EXPECT_EQ(workload_expr(WorkloadQuery::BusyIdleSteps, GroupBy::Namespace, "", kWindowNs, kStep),
            "sum by (namespace) (count_over_time(((100 * max by (namespace, " + gpu +
                R"() (solscope_gpu_utilization_ratio{namespace!=""}) > 80) and (100 * max by (namespace, )" +
                gpu + R"() (solscope_compute_sol_ratio{namespace!=""}) < 20))[3600s:15s])))");
  EXPECT_EQ(workload_expr(WorkloadQuery::ComputeSolSum, GroupBy::Namespace, "", kWindowNs, kStep),
            "sum by (namespace) (sum_over_time((100 * max by (namespace, " + gpu +
                R"() (solscope_compute_sol_ratio{namespace!=""}))[3600s:15s])))");
  EXPECT_EQ(workload_expr(WorkloadQuery::ComputeSolSteps, GroupBy::Namespace, "", kWindowNs, kStep),
            "sum by (namespace) (count_over_time((100 * max by (namespace, " + gpu +
                R"() (solscope_compute_sol_ratio{namespace!=""}))[3600s:15s])))");
  EXPECT_EQ(group_of(GroupBy::Pod, {{"namespace", "ml"}, {"pod", "train-1"}}), "ml/train-1");
  EXPECT_EQ(group_of(GroupBy::Pod, {{"pod", "train-1"}}), "train-1");
  EXPECT_EQ(group_of(GroupBy::Job, {{"hpc_job", "1234"}, {"namespace", "ml"}}), "1234");
  EXPECT_EQ(group_of(GroupBy::Namespace, {{"pod", "p"}}), "");
}

TEST(PromApi, selector_urls_and_times) {
  EXPECT_EQ(selector_inner(R"( {cluster="a", env!="x"} )"), R"(cluster="a", env!="x")");
  EXPECT_EQ(selector_inner(R"(cluster="a")"), R"(cluster="a")");
  EXPECT_EQ(selector_inner("{}"), "");
  EXPECT_EQ(with_matchers("m", "", ""), "m");
  EXPECT_EQ(with_matchers("m", "a=\"1\"", "b=\"2\""), R"(m{a="1",b="2"})");
  EXPECT_EQ(net::url_encode("a b{\"}&=+"), "a%20b%7B%22%7D%26%3D%2B");
  EXPECT_EQ(net::prom_time(1'700'000'000'123'456'789), "1700000000.123");
  EXPECT_EQ(regex_literal("a.b"), R"(a\\.b)");
  EXPECT_EQ(figure_expr(SeriesKind::Dcgm, Figure::GpuUtil, "", "").rfind("max by (host, gpu", 0), 0u);
  EXPECT_EQ(figure_expr(SeriesKind::Solscope, Figure::MemorySol, "", "").rfind("100 * max by", 0), 0u);
}

TEST(PromApi, parses_matrix_values_including_nan) {
  const HttpResponse r{200,
                       R"({"status":"success","data":{"resultType":"matrix","result":[)"
                       R"({"metric":{"gpu":"0"},"values":[[1700000000.5,"1.5"],[1700000015,"NaN"]]}]}})"};
  auto series = parse_prom_answer(r, "test", "http://x", "");
  ASSERT_TRUE(series.has_value());
  ASSERT_EQ(series->size(), 1u);
  EXPECT_EQ(series->front().labels.at("gpu"), "0");
  ASSERT_EQ(series->front().points.size(), 2u);
  EXPECT_EQ(series->front().points[0].first, 1'700'000'000'500'000'000);
  EXPECT_DOUBLE_EQ(series->front().points[0].second, 1.5);
  EXPECT_TRUE(std::isnan(series->front().points[1].second));
}

}  // namespace
}  // namespace solscope::fleet
