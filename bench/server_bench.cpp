// Costs of the HTTP server's per-scrape and per-sample work, each next to a baseline of the same run (style
// rule 21): /metrics rendering at 8 GPUs against LiveState::snapshot() alone (the copy it starts from), and
// the stream's fan-out per event per client against rendering the event's JSON once. Figures are SYNTHETIC
// samples, not GPU measurements. The fleet view's /api/v1/fleet body for 4,096 SYNTHETIC GPUs (rendered once
// per refresh, whatever the number of dashboards) against /metrics at 8 GPUs.
#include <benchmark/benchmark.h>

#include <chrono>

#include "core/live_state.hpp"
#include "server/detail/api.hpp"
#include "server/detail/event_stream.hpp"
#include "server/detail/fleet_api.hpp"
#include "server/detail/metrics.hpp"

namespace solscope::server {
namespace {

constexpr std::uint32_t kGpus = 8;
constexpr std::int64_t kT0 = 1'735'689'600'000'000'000;

/// A SYNTHETIC sample with every pipe, path and catalog metric known (the most series /metrics can have).
auto full_sample(std::uint32_t device, std::int64_t t_ns) -> core::SolSample {
  core::SolSample s;
  s.device_index = device;
  s.t_start_ns = t_ns;
  s.t_end_ns = t_ns + 100'000'000;
  s.source = core::SourceKind::Replay;
  s.compute_sol_pct = 70.0;
  s.compute_pipe = core::Pipe::Tensor;
  s.memory_sol_pct = 40.0;
  s.memory_path = core::MemPath::Dram;
  s.pipe_pct.fill(30.0);
  s.path_pct.fill(20.0);
  s.metrics.fill(55.0);
  s.bound = core::Bound::Compute;
  s.attainable_compute_sol_pct = 80.0;
  s.attainable_memory_sol_pct = 45.0;
  return s;
}

/// 8 GPUs with a minute of 100 ms samples each.
auto eight_gpus() -> const core::LiveState& {
  static const core::LiveState* state = [] {
    auto* s = new core::LiveState();
    std::vector<core::DeviceState> devices;
    for (std::uint32_t d = 0; d < kGpus; ++d) {
      core::DeviceState dev;
      dev.info.index = d;
      dev.info.uuid = "GPU-SYNTHETIC-" + std::to_string(d);
      dev.info.name = "SYNTHETIC bench GPU";
      dev.info.chip = "GH100";
      dev.info.dram_peak_bytes_per_s = 3.35e12;
      dev.source = core::SourceKind::Replay;
      devices.push_back(dev);
    }
    s->set_devices(std::move(devices));
    for (int i = 0; i < 600; ++i) {
      for (std::uint32_t d = 0; d < kGpus; ++d) s->add(full_sample(d, kT0 + std::int64_t{i} * 100'000'000));
    }
    return s;
  }();
  return *state;
}

void BM_snapshot_8gpu_baseline(benchmark::State& st) {
  const auto& state = eight_gpus();
  for (auto _ : st) benchmark::DoNotOptimize(state.snapshot());
}
BENCHMARK(BM_snapshot_8gpu_baseline);

void BM_render_metrics_8gpu(benchmark::State& st) {
  const auto& state = eight_gpus();
  const MetricsContext context{.hostname = "node-17", .version = "0.1.0"};
  std::size_t bytes = 0;
  for (auto _ : st) {
    const std::string text = render_metrics(state, context);
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  st.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_render_metrics_8gpu);

/// A SYNTHETIC fleet of 4,096 GPUs (512 hosts x 8), every figure known.
auto big_fleet() -> const fleet::FleetSnapshot& {
  static const auto* snapshot = [] {
    auto* s = new fleet::FleetSnapshot;
    for (int i = 0; i < 4096; ++i) {
      fleet::FleetRow r;
      r.key = {.host = "synthetic-node-" + std::to_string(i / 8),
               .gpu = std::to_string(i % 8),
               .uuid = "GPU-SYNTHETIC-" + std::to_string(i),
               .model_name = "SYNTHETIC",
               .job = "ns/job"};
      r.compute_sol_pct = r.compute_sol_mean_pct = (i * 37) % 100;
      r.memory_sol_pct = r.memory_sol_mean_pct = 50;
      r.gpu_util_pct = r.gpu_util_mean_pct = 90;
      r.busy_idle_gpu_hours = 0.25;
      r.straggler_gap_pct = -3.5;
      s->rows.push_back(std::move(r));
    }
    return s;
  }();
  return *snapshot;
}

void BM_fleet_json_4096gpu(benchmark::State& st) {
  const auto& snapshot = big_fleet();
  std::size_t bytes = 0;
  for (auto _ : st) {
    const std::string text = fleet_snapshot_json(snapshot, kT0, kDefaultFleetRefresh);
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  st.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_fleet_json_4096gpu)->Unit(benchmark::kMillisecond);

void BM_event_json_baseline(benchmark::State& st) {
  const core::SolSample s = full_sample(0, kT0);
  for (auto _ : st) benchmark::DoNotOptimize(sample_event_json(s, nullptr));
}
BENCHMARK(BM_event_json_baseline);

/// One event published to N clients, each taking it (the connection thread's side, without the socket write).
/// "per_client" is the time per event per client.
void BM_stream_fanout(benchmark::State& st) {
  const auto clients = static_cast<std::size_t>(st.range(0));
  StreamHub hub(clients, 512);
  std::vector<std::shared_ptr<StreamClient>> connected;
  for (std::size_t i = 0; i < clients; ++i) connected.push_back(hub.connect(std::nullopt));
  auto event =
      std::make_shared<const StreamEvent>(StreamEvent{0, sample_event_json(full_sample(0, kT0), nullptr)});
  for (auto _ : st) {
    hub.publish(event);
    for (auto& c : connected) benchmark::DoNotOptimize(c->take(std::chrono::milliseconds(0)));
  }
  st.counters["per_client"] = benchmark::Counter(static_cast<double>(st.iterations() * clients),
                                                 benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_stream_fanout)->Arg(1)->Arg(8)->Arg(64);

}  // namespace
}  // namespace solscope::server
