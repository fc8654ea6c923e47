// The cost of finding training iterations in the samples (core/iteration.hpp, issue 25: under 1% of one core
// for 8 GPUs at 10 ms): IterationTracker::add over simulated time, against core::derive of the same samples
// in the same run (the step every sample already pays). `core_pct` = CPU time per simulated second, in
// percent of one core. The load is a SYNTHETIC training job (tests/data/synthetic/iteration_load.hpp): 0.8 s
// iterations, 70% compute, 20% all-reduce, 10% idle, 3% jitter, one schedule per GPU.
#include <benchmark/benchmark.h>

#include <array>
#include <ctime>
#include <vector>

#include "core/derive.hpp"
#include "core/iteration.hpp"
#include "data/synthetic/iteration_load.hpp"

namespace {

using namespace solscope::core;

constexpr std::uint32_t kGpus = 8;
constexpr std::int64_t kIntervalNs = 10 * kNsPerMs;
constexpr double kSimulatedS = 60.0;  ///< per benchmark iteration; the window fills in its first half
constexpr auto kTicks = static_cast<std::size_t>(kSimulatedS * kNsPerS / kIntervalNs);

auto raw_samples() -> std::vector<RawSample> {
  std::vector<RawSample> out;
  out.reserve(kGpus * kTicks);
  std::vector<std::vector<double>> starts;
  solscope::synthetic::TrainingShape shape{.period_s = 0.8, .jitter_pct = 3.0, .seconds = kSimulatedS};
  for (std::uint32_t g = 0; g < kGpus; ++g) {
    shape.seed = g + 1;
    starts.push_back(solscope::synthetic::training_starts(shape));
  }
  for (std::size_t n = 0; n < kTicks; ++n) {
    for (std::uint32_t g = 0; g < kGpus; ++g) {
      const double a = static_cast<double>(n) * 0.01;
      const auto p = solscope::synthetic::training_shares(shape, starts[g], a, a + 0.01);
      RawSample r;
      r.device_index = g;
      r.t_start_ns = static_cast<std::int64_t>(n) * kIntervalNs;
      r.t_end_ns = r.t_start_ns + kIntervalNs;
      r.set(MetricId::TensorPipe, 84.0 * p.compute);
      r.set(MetricId::DramThroughput, 34.0 * p.compute + 5.0 * p.communication);
      r.set(MetricId::SmActive, 98.0 * p.compute + 12.0 * p.communication);
      r.set(MetricId::GrActive, 99.0 * (p.compute + p.communication));
      r.set(MetricId::NvlinkRxBytesPerS, 150e9 * p.communication);
      r.set(MetricId::NvlinkTxBytesPerS, 150e9 * p.communication);
      out.push_back(r);
    }
  }
  return out;
}

/// Shifts every sample by one simulated run, so that the next benchmark iteration continues the clock.
template <typename Sample>
void advance(std::vector<Sample>& samples) {
  for (Sample& s : samples) {
    s.t_start_ns += static_cast<std::int64_t>(kSimulatedS) * kNsPerS;
    s.t_end_ns += static_cast<std::int64_t>(kSimulatedS) * kNsPerS;
  }
}

/// `core_pct`: the process CPU time of the timed loop (std::clock, from `cpu_start`) per simulated second, in
/// percent of one core.
void report(benchmark::State& state, std::clock_t cpu_start) {
  const double cpu_s = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  state.counters["core_pct"] = 100.0 * cpu_s / (kSimulatedS * static_cast<double>(state.iterations()));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kGpus * kTicks));
}

void BM_baseline_derive_8_gpus_10ms(benchmark::State& state) {
  auto raw = raw_samples();
  DeviceInfo device;
  device.dram_peak_bytes_per_s = 3.35e12;
  const std::clock_t cpu_start = std::clock();
  for (auto _ : state) {
    for (const RawSample& r : raw) {
      SolSample s = derive(r, device);
      benchmark::DoNotOptimize(s);
    }
    advance(raw);
  }
  report(state, cpu_start);
}
BENCHMARK(BM_baseline_derive_8_gpus_10ms)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

void BM_iteration_tracker_8_gpus_10ms(benchmark::State& state) {
  const auto raw = raw_samples();
  DeviceInfo device;
  device.dram_peak_bytes_per_s = 3.35e12;
  std::vector<SolSample> samples;
  for (const RawSample& r : raw) samples.push_back(derive(r, device));
  std::array<IterationTracker, kGpus> trackers;
  const std::clock_t cpu_start = std::clock();
  for (auto _ : state) {
    for (const SolSample& s : samples) trackers[s.device_index].add(s);
    advance(samples);
  }
  if (!trackers[0].estimate().periodic) state.SkipWithError("the tracker found no period");
  report(state, cpu_start);
}
BENCHMARK(BM_iteration_tracker_8_gpus_10ms)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

}  // namespace
