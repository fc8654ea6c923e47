// Trace write and read throughput (samples/s), each beside an in-memory baseline measured in the same run, so
// that figures can be quoted as ratios: write vs appending the same (RawSample, SolSample) pairs to a vector,
// read vs copying the same RawSamples with memcpy. Goals (Release): write >= 250 k samples/s, read >= 2 M/s.
// Files go to $TMPDIR (or /tmp). The samples are SYNTHETIC (pseudo-random values; nothing measured).
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/derive.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"

namespace {

using solscope::core::DeviceInfo;
using solscope::core::MetricId;
using solscope::core::RawSample;
using solscope::core::SolSample;

constexpr std::uint32_t kDevices = 8;
constexpr std::int64_t kIntervalNs = 10'000'000;

auto bench_devices() -> std::vector<DeviceInfo> {
  std::vector<DeviceInfo> devices(kDevices);
  for (std::uint32_t i = 0; i < kDevices; ++i) {
    devices[i].index = i;
    devices[i].uuid = "GPU-synthetic-" + std::to_string(i);
    devices[i].name = "Synthetic GPU (benchmark)";
    devices[i].dram_peak_bytes_per_s = 3.35e12;
  }
  return devices;
}

/// `n` SYNTHETIC samples, 8 devices interleaved in time order, every metric set except NVLink (NaN).
auto make_samples(std::size_t n) -> std::vector<std::pair<RawSample, SolSample>> {
  const auto devices = bench_devices();
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> pct(0.0, 100.0);
  std::vector<std::pair<RawSample, SolSample>> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    RawSample& raw = out[i].first;
    raw.device_index = static_cast<std::uint32_t>(i % kDevices);
    raw.t_start_ns = 1'700'000'000'000'000'000 + static_cast<std::int64_t>(i / kDevices) * kIntervalNs;
    raw.t_end_ns = raw.t_start_ns + kIntervalNs;
    raw.source = solscope::core::SourceKind::PmSampling;
    for (double& v : raw.values) v = pct(rng);
    raw.set(MetricId::NvlinkRxBytesPerS, solscope::core::kUnknown);
    raw.set(MetricId::NvlinkTxBytesPerS, solscope::core::kUnknown);
    out[i].second = solscope::core::derive(raw, devices[raw.device_index]);
  }
  return out;
}

/// A temporary directory for the benchmark's traces, removed at exit.
class BenchDir {
 public:
  BenchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "solscope-bench-XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~BenchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  BenchDir(const BenchDir&) = delete;
  auto operator=(const BenchDir&) -> BenchDir& = delete;
  [[nodiscard]] auto path() const -> const std::filesystem::path& { return path_; }

 private:
  std::filesystem::path path_;
};

auto bench_dir() -> const std::filesystem::path& {
  static const BenchDir dir;
  return dir.path();
}

/// Writes `samples` to a fresh trace at `path`; false on any error.
auto write_trace(const std::filesystem::path& path,
                 const std::vector<std::pair<RawSample, SolSample>>& samples) -> bool {
  auto writer = solscope::trace::Writer::open(path, {.overwrite = true});
  if (!writer || !writer->write_devices(bench_devices())) return false;
  for (const auto& [raw, sol] : samples) {
    if (!writer->append(raw, sol)) return false;
  }
  return static_cast<bool>(writer->close());
}

void BM_WriteTrace(benchmark::State& state) {
  const auto samples = make_samples(static_cast<std::size_t>(state.range(0)));
  const auto path = bench_dir() / "write.sqlite";
  for (auto _ : state) {
    if (!write_trace(path, samples)) state.SkipWithError("trace write failed");
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(std::filesystem::file_size(path)));
}
BENCHMARK(BM_WriteTrace)->Arg(200'000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_WriteBaselineVectorAppend(benchmark::State& state) {
  const auto samples = make_samples(static_cast<std::size_t>(state.range(0)));
  std::vector<std::pair<RawSample, SolSample>> sink;
  sink.reserve(samples.size());  // like the writer's batch buffer: allocated once, reused
  for (auto _ : state) {
    sink.clear();
    for (const auto& pair : samples) sink.push_back(pair);
    benchmark::DoNotOptimize(sink.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_WriteBaselineVectorAppend)->Arg(200'000)->Unit(benchmark::kMillisecond)->UseRealTime();

/// A 1 M-sample trace written once per process run.
auto read_fixture() -> const std::filesystem::path& {
  static const std::filesystem::path path = [] {
    const auto p = bench_dir() / "read.sqlite";
    if (!write_trace(p, make_samples(1'000'000))) return std::filesystem::path{};
    return p;
  }();
  return path;
}

void BM_ReadTrace(benchmark::State& state) {
  auto reader = solscope::trace::Reader::open(read_fixture());
  if (!reader) {
    state.SkipWithError("trace open failed");
    return;
  }
  RawSample sample;
  std::uint64_t count = 0;
  for (auto _ : state) {
    auto cursor = reader->cursor();
    if (!cursor) {
      state.SkipWithError("cursor failed");
      return;
    }
    while (cursor->next(sample)) {
      benchmark::DoNotOptimize(sample.values.data());
      ++count;
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(count));
}
BENCHMARK(BM_ReadTrace)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReadTraceSol(benchmark::State& state) {
  auto reader = solscope::trace::Reader::open(read_fixture());
  if (!reader) {
    state.SkipWithError("trace open failed");
    return;
  }
  SolSample sample;
  std::uint64_t count = 0;
  for (auto _ : state) {
    auto cursor = reader->cursor();
    while (cursor && cursor->next(sample)) {
      benchmark::DoNotOptimize(sample.metrics.data());
      ++count;
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(count));
}
BENCHMARK(BM_ReadTraceSol)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReadBaselineMemcpy(benchmark::State& state) {
  std::vector<RawSample> source(1'000'000);
  for (std::size_t i = 0; i < source.size(); ++i) source[i].t_start_ns = static_cast<std::int64_t>(i);
  RawSample sample;
  for (auto _ : state) {
    for (const RawSample& s : source) {
      std::memcpy(&sample, &s, sizeof sample);
      benchmark::DoNotOptimize(sample.values.data());
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(source.size()));
}
BENCHMARK(BM_ReadBaselineMemcpy)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_OpenTrace(benchmark::State& state) {
  const auto& path = read_fixture();
  for (auto _ : state) {
    auto reader = solscope::trace::Reader::open(path);
    benchmark::DoNotOptimize(reader.has_value());
  }
}
BENCHMARK(BM_OpenTrace)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
