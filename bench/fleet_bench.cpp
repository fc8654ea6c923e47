// The fleet view over 4,096 GPUs (512 hosts x 8) served by a local fake Prometheus
// (tests/support/fake_prometheus.hpp, SYNTHETIC figures): one snapshot with the window reduced by Prometheus
// (the default) against the baseline of fetching every GPU's step series and reducing it here; fetching the
// step answers without reading them; parsing one of them; and the terminal table: sorting, filtering and
// drawing a 200x50 frame, against the baseline of clearing that frame. CPU time is the benchmark thread's:
// the fake server's thread is not in it.
#include <benchmark/benchmark.h>

#include <memory>

#include "fleet/detail/prom_api.hpp"
#include "fleet/fleet_math.hpp"
#include "fleet/prometheus_fleet.hpp"
#include "net/remote_http.hpp"
#include "support/fake_prometheus.hpp"
#include "tui/detail/fleet_view.hpp"

namespace {

using namespace solscope;

constexpr int kHosts = 512;  // x 8 = 4,096 GPUs

auto fake() -> bench::FakePrometheus& {
  static bench::FakePrometheus server(kHosts);
  return server;
}

auto provider(bool aggregate_on_server = true) -> std::unique_ptr<fleet::FleetProvider> {
  net::RemoteEndpoint endpoint{.url = fake().url()};
  fleet::FleetQuery q{.window_ns = 3'600'000'000'000,
                      .end_ns = bench::kFakeEndNs,
                      .aggregate_on_server = aggregate_on_server};
  auto p = fleet::make_prometheus_fleet(endpoint, q);
  if (!p) std::abort();
  return std::move(*p);
}

/// One snapshot: Prometheus reduces the window (2 counts + 7 instant queries of 4,096 values).
void BM_FleetSnapshot4096(benchmark::State& state) {
  auto p = provider(state.range(0) != 0);
  std::size_t rows = 0;
  for (auto _ : state) {
    auto snap = p->snapshot();
    if (!snap) state.SkipWithError(snap.error().describe().c_str());
    rows = snap ? snap->rows.size() : 0;
  }
  state.counters["gpus"] = static_cast<double>(rows);
  state.counters["answer_MB"] = static_cast<double>(fake().range_bytes()) / 1e6;
}
// Arg 1: the default (Prometheus reduces the window); arg 0: the baseline, every GPU's 241 steps fetched
// (2 counts + 3 query_range answers) and reduced here (--step-series).
BENCHMARK(BM_FleetSnapshot4096)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->Iterations(5);

/// Baseline: the same five GETs (2 counts, 3 ranges) over loopback, bodies not read.
void BM_FetchOnly4096(benchmark::State& state) {
  auto http = net::make_remote_http(net::RemoteEndpoint{.url = fake().url()});
  if (!http) std::abort();
  for (auto _ : state) {
    for (const char* q :
         {"/api/v1/query?query=solscope_", "/api/v1/query?query=DCGM_", "/api/v1/query_range?query=DCGM_PIPE",
          "/api/v1/query_range?query=DCGM_DRAM", "/api/v1/query_range?query=DCGM_UTIL"}) {
      auto r = (*http)->get(q);
      benchmark::DoNotOptimize(r);
    }
  }
}
BENCHMARK(BM_FetchOnly4096)->Unit(benchmark::kMillisecond)->Iterations(5);

/// Parsing one range answer (4,096 series x 241 points).
void BM_ParseOneRangeAnswer4096(benchmark::State& state) {
  const net::HttpResponse r{200, fake().compute_body()};
  for (auto _ : state) {
    auto series = fleet::parse_prom_answer(r, "bench", "fake", "");
    benchmark::DoNotOptimize(series);
  }
}
BENCHMARK(BM_ParseOneRangeAnswer4096)->Unit(benchmark::kMillisecond)->Iterations(5);

auto snapshot_once() -> const fleet::FleetSnapshot& {
  static const fleet::FleetSnapshot snap = [] {
    auto s = provider()->snapshot();
    if (!s) std::abort();
    return *s;
  }();
  return snap;
}

/// Sorting by a new key and filtering, as `s` and `/` do.
void BM_FleetSortFilter4096(benchmark::State& state) {
  tui::FleetViewData data;
  data.snapshot = snapshot_once();
  tui::FleetViewState ui;
  for (auto _ : state) {
    ui.sort = fleet::next_sort_key(ui.sort);
    tui::apply_view(data, ui, tui::fleet_table_rows(50));
    benchmark::DoNotOptimize(data.visible.data());
  }
}
BENCHMARK(BM_FleetSortFilter4096)->Unit(benchmark::kMicrosecond);

/// Drawing the table (200x50) of 4,096 rows.
void BM_FleetRenderTable4096(benchmark::State& state) {
  tui::FleetViewData data;
  data.snapshot = snapshot_once();
  tui::FleetViewState ui;
  tui::apply_view(data, ui, tui::fleet_table_rows(50));
  tui::Frame frame(50, 200);
  for (auto _ : state) {
    tui::render_fleet(data, ui, frame);
    benchmark::DoNotOptimize(frame);
  }
}
BENCHMARK(BM_FleetRenderTable4096)->Unit(benchmark::kMicrosecond);

/// Baseline: clearing the 200x50 frame (the least any redraw does).
void BM_FrameClear(benchmark::State& state) {
  tui::Frame frame(50, 200);
  for (auto _ : state) {
    frame.clear();
    benchmark::DoNotOptimize(frame);
  }
}
BENCHMARK(BM_FrameClear)->Unit(benchmark::kMicrosecond);

}  // namespace
