// The profiler watch's cost (issue 23): one scan of /proc for Nsight and DCGM profiling
// (workload/profiler_scan), which the daemon runs every kProfilerScanIntervalNs (500 ms). Figures:
// - BM_ScanThisMachine: this machine's real /proc (its process count is printed as `processes`);
// - BM_ScanSynthetic/N: a SYNTHETIC /proc of N processes, each with a 96 KiB maps file (about what a Python
//   process with CUDA libraries maps) and none of them a profiler, the worst case: every maps file is read;
// - BM_ReadMapsOnlySynthetic/N: the baseline in the same run, reading the same maps files whole and nothing
// else. The ratio scan / read-only is the scan's own overhead; `cpu_pct_at_2hz` is the share of one core at
// two scans a second.
#include <benchmark/benchmark.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

#include "workload/profiler_scan.hpp"

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMapsBytes = 96 * 1024;

/// The SYNTHETIC trees of this run, removed when the program ends.
struct Trees {
  fs::path base = fs::temp_directory_path() / ("solscope-scan-bench-" + std::to_string(::getpid()));
  ~Trees() {
    std::error_code ignored;
    fs::remove_all(base, ignored);
  }
};
Trees g_trees;  // NOLINT(cert-err58-cpp): a benchmark program's scratch directory

/// A SYNTHETIC procfs of `count` plain Python processes (no profiler), built once per count.
auto synthetic_proc(int count) -> fs::path {
  const fs::path root = g_trees.base / std::to_string(count);
  if (fs::exists(root)) return root;
  std::string maps;
  for (int line = 0; maps.size() < kMapsBytes; ++line) {
    maps += "7f2a" + std::to_string(100000 + line) +
            "000-7f2a00200000 r-xp 00000000 103:02 1234567  /usr/lib/python3/dist-packages/torch/lib/"
            "libtorch_cuda_" +
            std::to_string(line) + ".so\n";
  }
  for (int pid = 1000; pid < 1000 + count; ++pid) {
    const fs::path dir = root / std::to_string(pid);
    fs::create_directories(dir);
    std::ofstream(dir / "comm") << "python3\n";
    std::ofstream(dir / "cmdline", std::ios::binary) << std::string("python3\0train.py\0", 17);
    std::ofstream(dir / "maps") << maps;
    std::ofstream(dir / "environ", std::ios::binary) << std::string("HOME=/root\0PATH=/usr/bin\0", 25);
  }
  return root;
}

void BM_ScanThisMachine(benchmark::State& state) {
  double processes = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    if (std::isdigit(static_cast<unsigned char>(entry.path().filename().string()[0])) != 0) processes += 1;
  }
  for (auto _ : state) benchmark::DoNotOptimize(solscope::workload::scan_profilers("/proc", {}));
  state.counters["processes"] = processes;
}
BENCHMARK(BM_ScanThisMachine)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ScanSynthetic(benchmark::State& state) {
  const fs::path root = synthetic_proc(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(solscope::workload::scan_profilers(root, {}));
}
BENCHMARK(BM_ScanSynthetic)->Arg(200)->Arg(2000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReadMapsOnlySynthetic(benchmark::State& state) {
  const fs::path root = synthetic_proc(static_cast<int>(state.range(0)));
  std::string buffer(kMapsBytes + 4096, '\0');
  for (auto _ : state) {
    std::size_t bytes = 0;
    for (const auto& entry : fs::directory_iterator(root)) {
      std::ifstream in(entry.path() / "maps", std::ios::binary);
      in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      bytes += static_cast<std::size_t>(in.gcount());
    }
    benchmark::DoNotOptimize(bytes);
  }
}
BENCHMARK(BM_ReadMapsOnlySynthetic)->Arg(200)->Arg(2000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
