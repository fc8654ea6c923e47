// CPU cost of the sampling path (poll -> derive() -> sinks) at 8 GPUs x 100 Hz, replayed in real time from a
// SYNTHETIC trace. Each case runs `kSeconds` of wall time and reports `cpu_pct_of_one_core` (process
// user+system CPU time / wall time x 100). Baseline in the same run: the same engine polling a source with no
// samples (the cost of waking up alone). Goal (issue 2): under 0.5% of one core.
#include <sys/resource.h>

#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/window.hpp"
#include "data/synthetic/synthetic_trace.hpp"
#include "runtime/engine.hpp"
#include "runtime/engine_loop.hpp"
#include "runtime/sinks.hpp"
#include "sources/replay/trace_replay_source.hpp"

namespace {

using namespace solscope;
constexpr double kSeconds = 5.0;
constexpr std::uint32_t kGpus = 8;

auto cpu_seconds() -> double {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto secs = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  return secs(usage.ru_utime) + secs(usage.ru_stime);
}

/// What the live path keeps per sample: one window accumulator per device.
class WindowSink : public app::SampleSink {
 public:
  auto begin(const std::vector<core::DeviceInfo>&) -> core::Result<void> override { return core::ok(); }
  auto on_sample(const core::RawSample&, const core::SolSample& sol) -> core::Result<void> override {
    windows_[sol.device_index % kGpus].add(sol);
    ++samples;
    return core::ok();
  }
  std::uint64_t samples = 0;

 private:
  std::array<core::WindowAccumulator, kGpus> windows_;
};

class EmptySource : public sources::CounterSource {
 public:
  auto devices() const -> std::vector<core::DeviceInfo> override { return {}; }
  auto start(const sources::SourceConfig&) -> core::Result<void> override { return core::ok(); }
  auto poll() -> core::Result<std::vector<core::RawSample>> override {
    return std::vector<core::RawSample>{};
  }
  void stop() override {}
  auto status(std::uint32_t) const -> sources::DeviceStatus override { return {}; }
};

auto trace_path() -> std::filesystem::path {
  static const auto path = [] {
    auto p = std::filesystem::temp_directory_path() / "solscope-bench-8gpu-100hz.sqlite";
    const std::uint64_t per_device = static_cast<std::uint64_t>(kSeconds * 100) + 200;
    trace::WriterOptions options;
    options.overwrite = true;
    if (!synthetic::write_trace(p, kGpus, per_device, 7, options)) std::abort();
    return p;
  }();
  return path;
}

void run_case(benchmark::State& state, sources::CounterSource& source, app::SampleSink& sink) {
  std::ostringstream warnings;
  app::Engine engine(source, {&sink}, warnings);
  std::atomic<bool> stop{false};
  const app::EngineOptions options{.poll_interval_ns = app::poll_interval_for(10'000'000),
                                   .duration_ns = static_cast<std::int64_t>(kSeconds * 1e9)};
  for (auto _ : state) {
    const double cpu0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    auto summary = engine.run(stop, options);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!summary) state.SkipWithError(summary.error().message.c_str());
    state.counters["cpu_pct_of_one_core"] = (cpu_seconds() - cpu0) / wall * 100.0;
    state.counters["samples_per_s"] = summary ? static_cast<double>(summary->samples) / wall : 0.0;
  }
}

void BM_baseline_engine_wakeups_only(benchmark::State& state) {
  EmptySource source;
  WindowSink sink;
  run_case(state, source, sink);
}
BENCHMARK(BM_baseline_engine_wakeups_only)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

void BM_sampling_path_8gpu_100hz_replayed(benchmark::State& state) {
  auto source = replay::TraceReplaySource::open(trace_path(), {.speed = 1.0});
  if (!source || !(*source)->start({})) {
    state.SkipWithError("cannot open the synthetic trace");
    return;
  }
  WindowSink sink;
  run_case(state, **source, sink);
}
BENCHMARK(BM_sampling_path_8gpu_100hz_replayed)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

void BM_sampling_path_8gpu_100hz_json_to_devnull(benchmark::State& state) {
  auto source = replay::TraceReplaySource::open(trace_path(), {.speed = 1.0});
  if (!source || !(*source)->start({})) {
    state.SkipWithError("cannot open the synthetic trace");
    return;
  }
  std::ofstream devnull("/dev/null");
  app::JsonLinesSink sink(devnull);
  run_case(state, **source, sink);
}
BENCHMARK(BM_sampling_path_8gpu_100hz_json_to_devnull)
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();

}  // namespace
