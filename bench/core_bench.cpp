// derive() and window aggregation throughput, with a baseline in the same run: copying the same RawSample
// (the least any per-sample step must do). Report figures as ratios to the baseline.
#include <benchmark/benchmark.h>

#include <array>
#include <random>
#include <vector>

#include "core/derive.hpp"
#include "core/window.hpp"

namespace {

using namespace solscope::core;

auto make_samples(std::size_t n) -> std::vector<RawSample> {
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> pct(0.0, 100.0);
  std::vector<RawSample> samples(n);
  for (std::size_t i = 0; i < n; ++i) {
    RawSample& s = samples[i];
    s.device_index = static_cast<std::uint32_t>(i % 8);
    s.t_start_ns = static_cast<std::int64_t>(i) * 10'000'000;
    s.t_end_ns = s.t_start_ns + 10'000'000;
    for (MetricId id :
         {MetricId::TensorPipe, MetricId::FmaPipe, MetricId::AluPipe, MetricId::IssueActive,
          MetricId::SmThroughput, MetricId::DramThroughput, MetricId::L2Throughput, MetricId::L1Wavefronts,
          MetricId::L1TexThroughput, MetricId::SmActive, MetricId::SmOccupancy, MetricId::GrActive,
          MetricId::GpuUtil, MetricId::SmClockMhz, MetricId::PowerW}) {
      s.set(id, pct(rng));
    }
  }
  return samples;
}

void BM_baseline_copy_raw_sample(benchmark::State& state) {
  const auto samples = make_samples(4096);
  RawSample sink;
  std::size_t i = 0;
  for (auto _ : state) {
    sink = samples[i++ & 4095];
    benchmark::DoNotOptimize(sink);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_baseline_copy_raw_sample);

void BM_derive(benchmark::State& state) {
  const auto samples = make_samples(4096);
  DeviceInfo device;
  device.dram_peak_bytes_per_s = 3.35e12;
  std::size_t i = 0;
  for (auto _ : state) {
    SolSample s = derive(samples[i++ & 4095], device);
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_derive);

void BM_derive_and_aggregate(benchmark::State& state) {
  const auto samples = make_samples(4096);
  DeviceInfo device;
  std::array<WindowAccumulator, 8> windows;  // one per device, as the live path keeps them
  std::size_t i = 0;
  for (auto _ : state) {
    const RawSample& raw = samples[i++ & 4095];
    WindowAccumulator& acc = windows[raw.device_index];
    acc.add(derive(raw, device));
    if (acc.count() == 100) {  // a 1 s window of 10 ms samples
      SolSample w = acc.result();
      benchmark::DoNotOptimize(w);
      acc.reset();
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_derive_and_aggregate);

}  // namespace
