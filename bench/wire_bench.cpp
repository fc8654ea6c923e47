// The cost of one `--json` line (issue 18, defect 14): the document path (wire::sol_sample_to_json, then
// nlohmann's dump) against the direct text path (wire::append_sol_sample_json), in the same run, over the
// same samples: derived from SYNTHETIC counters of 8 GPUs, every catalog metric known. Goal: the text path at
// most 5 us a sample. Report the ratio of the two figures; the per-sample time is the benchmark's time.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/derive.hpp"
#include "core/metric_catalog.hpp"
#include "wire/json_text.hpp"
#include "wire/sample_json.hpp"

namespace {

using namespace solscope;

constexpr std::size_t kSamples = 4096;  // a power of two: the loop picks one with a mask

auto make_samples() -> std::vector<core::SolSample> {
  std::mt19937 rng(14);
  std::uniform_real_distribution<double> pct(0.0, 100.0);
  core::DeviceInfo device;
  device.dram_peak_bytes_per_s = 3.35e12;
  std::vector<core::SolSample> samples;
  samples.reserve(kSamples);
  for (std::size_t i = 0; i < kSamples; ++i) {
    core::RawSample raw;
    raw.device_index = static_cast<std::uint32_t>(i % 8);
    raw.t_start_ns = 1'700'000'000'000'000'000 + static_cast<std::int64_t>(i) * 10'000'000;
    raw.t_end_ns = raw.t_start_ns + 10'000'000;
    raw.source = core::SourceKind::PmSampling;
    for (const core::MetricDef& def : core::metric_catalog()) raw.set(def.id, pct(rng));
    samples.push_back(core::derive(raw, device));
  }
  return samples;
}

auto make_device() -> core::DeviceInfo {
  core::DeviceInfo device;
  device.uuid = "GPU-5d6e4c1e-2f4b-8a51-9b0c-3c9d2e1f0a7b";
  return device;
}

/// Before: build the document and write it as text (json_text), as the JSON Lines sink did.
void BM_json_line_document(benchmark::State& state) {
  const auto samples = make_samples();
  const auto device = make_device();
  std::string line;
  std::size_t i = 0;
  for (auto _ : state) {
    line = wire::json_text(wire::sol_sample_to_json(samples[i++ & (kSamples - 1)], &device));
    line += '\n';
    benchmark::DoNotOptimize(line.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(line.size()));
}
BENCHMARK(BM_json_line_document);

/// Now: the same bytes written straight into a reused string.
void BM_json_line_text(benchmark::State& state) {
  const auto samples = make_samples();
  const auto device = make_device();
  std::string line;
  std::size_t i = 0;
  for (auto _ : state) {
    line.clear();
    wire::append_sol_sample_json(line, samples[i++ & (kSamples - 1)], &device);
    line += '\n';
    benchmark::DoNotOptimize(line.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(line.size()));
}
BENCHMARK(BM_json_line_text);

}  // namespace
