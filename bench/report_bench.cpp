// `solscope report` on a 1-hour, 8-GPU trace at 10 ms (2.88 M SYNTHETIC samples, written once into a
// temporary directory by the one synthetic generator): wall time and peak RSS of building the report (every
// sample derived, phases, text and JSON), against the baseline of reading the same trace alone (cursor over
// the raw samples), measured in the same run. Goal (issue 14, item 5): under 5 s and 500 MB.
//
// Peak RSS: each case runs once more in a forked child, whose ru_maxrss (wait4) is its own peak; the child
// starts with the parent's resident pages, reported as `parent_rss_mb` beside it.
//
// Bytes per sample and per kernel call (docs/report.md, "Cost"): the report's peak RSS over a trace of 2N
// samples (or one GPU's N kernel calls more, 64 names of 90 bytes as demangled CUPTI names are) minus that
// over N, divided by N. The samples' figure is about 0 once the bins are full (bounded memory); the calls'
// about 24.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/report/report_command.hpp"
#include "core/derive.hpp"
#include "data/synthetic/synthetic_trace.hpp"
#include "report/report_json.hpp"
#include "report/report_text.hpp"
#include "trace/reader.hpp"

namespace {

using namespace solscope;
constexpr std::uint32_t kGpus = 8;
constexpr std::uint64_t kSamplesPerGpu = 360'000;  // 1 hour at 10 ms

/// The trace, written on first use and removed at exit.
class BenchTrace {
 public:
  BenchTrace() {
    dir_ = std::filesystem::temp_directory_path() / ("solscope-report-bench-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "hour-8gpu-10ms.sqlite").string();
    auto written = synthetic::write_trace(path_, kGpus, kSamplesPerGpu, 7);
    if (!written) {
      std::cerr << "cannot write the benchmark trace: " << written.error().describe() << "\n";
      std::abort();
    }
  }
  ~BenchTrace() { std::filesystem::remove_all(dir_); }
  BenchTrace(const BenchTrace&) = delete;
  auto operator=(const BenchTrace&) -> BenchTrace& = delete;
  [[nodiscard]] auto path() const -> const std::string& { return path_; }

 private:
  std::filesystem::path dir_;
  std::string path_;
};

auto trace_path() -> const std::string& {
  static const BenchTrace trace;
  return trace.path();
}

/// Baseline: every raw sample of the trace, read and counted.
auto read_only(const std::string& path) -> std::uint64_t {
  auto reader = trace::Reader::open(path);
  if (!reader) std::abort();
  auto cursor = reader->cursor();
  if (!cursor) std::abort();
  core::RawSample raw;
  std::uint64_t n = 0;
  while (cursor->next(raw)) ++n;
  return n;
}

/// The report as `solscope report` and `solscope report --json` build it, both forms rendered.
auto build(const std::string& path) -> std::uint64_t {
  auto reader = trace::Reader::open(path);
  if (!reader) std::abort();
  std::ostringstream err;
  auto report = app::build_report(*reader, path, err);
  if (!report) std::abort();
  const std::string text = report::render_text(*report);
  const std::string json = report::to_json(*report).dump(2);
  benchmark::DoNotOptimize(text.data());
  benchmark::DoNotOptimize(json.data());
  return report->samples;
}

auto rss_mb_now() -> double {
  std::ifstream statm("/proc/self/statm");
  long pages_total = 0;
  long pages_resident = 0;
  statm >> pages_total >> pages_resident;
  return static_cast<double>(pages_resident) * static_cast<double>(::sysconf(_SC_PAGESIZE)) / 1e6;
}

/// Peak RSS (MB) of one run of `work` in a forked child; -1 when the child failed.
auto child_peak_rss_mb(const std::function<void()>& work) -> double {
  const pid_t pid = ::fork();
  if (pid == 0) {
    work();
    ::_exit(0);
  }
  int status = 0;
  rusage usage{};
  if (pid < 0 || ::wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return -1.0;
  }
  return static_cast<double>(usage.ru_maxrss) * 1024.0 / 1e6;  // ru_maxrss: KiB (getrusage(2))
}

void run_case(benchmark::State& state, const std::function<std::uint64_t(const std::string&)>& work) {
  const std::string& path = trace_path();
  std::uint64_t samples = 0;
  for (auto _ : state) samples = work(path);
  state.counters["samples"] = static_cast<double>(samples);
  state.counters["parent_rss_mb"] = rss_mb_now();
  state.counters["peak_rss_mb"] = child_peak_rss_mb([&] { (void)work(path); });
}

void BM_ReadTraceOnly(benchmark::State& state) {
  run_case(state, read_only);
}
void BM_Report(benchmark::State& state) {
  run_case(state, build);
}

/// The path of the one-GPU trace with `samples` samples and `calls` kernel calls under `dir`.
auto sized_path(const std::filesystem::path& dir, std::uint64_t samples, std::uint64_t calls) -> std::string {
  return (dir / ("sized-" + std::to_string(samples) + "-" + std::to_string(calls) + ".sqlite")).string();
}

/// Writes that trace in a forked child, so that the records it builds never enlarge this process (whose
/// resident pages every later child starts with). Kernel calls take 10 us, 5 us apart, over 64 names.
auto sized_trace(const std::filesystem::path& dir, std::uint64_t samples, std::uint64_t calls)
    -> std::string {
  const std::string path = sized_path(dir, samples, calls);
  const double peak = child_peak_rss_mb([&] {
    std::vector<core::KernelRecord> kernels(calls);
    for (std::uint64_t i = 0; i < calls; ++i) {
      core::KernelRecord& k = kernels[i];
      k.start_ns = synthetic::kStartNs + static_cast<std::int64_t>(i) * 5'000;
      k.end_ns = k.start_ns + 10'000;
      k.correlation = i;
      k.name = "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<op_" +
               std::to_string(i % 64) + ">>(int, T1)";
    }
    auto written = synthetic::write_samples(
        path, {}, synthetic::devices(1), samples,
        [](std::uint32_t device, std::uint64_t n) { return synthetic::sample(device, n, 7); }, &kernels);
    if (!written) {
      std::cerr << "cannot write " << path << ": " << written.error().describe() << "\n";
      ::_exit(1);
    }
  });
  if (peak < 0) std::abort();
  return path;
}

/// Peak RSS (bytes) of the report of `path` in a forked child.
auto report_peak_bytes(const std::string& path) -> double {
  return child_peak_rss_mb([&] { (void)build(path); }) * 1e6;
}

/// Bytes the report keeps per unit: (peak(2N) - peak(N)) / N over the traces `small` and `large`.
void per_unit(benchmark::State& state, std::uint64_t n, const std::string& small, const std::string& large,
              const char* counter) {
  double small_bytes = 0.0;
  double large_bytes = 0.0;
  for (auto _ : state) {
    small_bytes = report_peak_bytes(small);
    large_bytes = report_peak_bytes(large);
  }
  state.counters[counter] = (large_bytes - small_bytes) / static_cast<double>(n);
  state.counters["peak_rss_mb_n"] = small_bytes / 1e6;
  state.counters["peak_rss_mb_2n"] = large_bytes / 1e6;
}

auto sized_dir() -> const std::filesystem::path& {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("solscope-report-sized-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

constexpr std::uint64_t kUnitN = 1'000'000;

void BM_ReportBytesPerSample(benchmark::State& state) {
  const std::string small = sized_trace(sized_dir(), kUnitN, 0);
  const std::string large = sized_trace(sized_dir(), 2 * kUnitN, 0);
  per_unit(state, kUnitN, small, large, "bytes_per_sample");
}

void BM_ReportBytesPerKernelCall(benchmark::State& state) {
  const std::string small = sized_trace(sized_dir(), 1000, kUnitN);
  const std::string large = sized_trace(sized_dir(), 1000, 2 * kUnitN);
  per_unit(state, kUnitN, small, large, "bytes_per_call");
  std::filesystem::remove_all(sized_dir());
}

// The per-unit cases run first, while this process is small: a child's peak RSS starts from its parent's.
BENCHMARK(BM_ReportBytesPerSample)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_ReportBytesPerKernelCall)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_ReadTraceOnly)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_Report)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace
