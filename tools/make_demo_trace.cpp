// Writes the bundled demo trace: SYNTHETIC figures in four phases (idle, a tensor-bound GEMM loop, a
// memory-bound decode loop, a launch-bound loop of tiny kernels) for GPUs that never existed. It shows what
// solscope displays without a GPU and is labelled synthetic in the file (meta.synthetic = 1) and on screen.
// Replace it with a real recording when one is made on a GPU (see tests/data/README.md).
//   make_demo_trace OUT.sqlite [gpus=4] [seconds=120]
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/derive.hpp"
#include "trace/writer.hpp"

namespace {

using solscope::core::MetricId;

constexpr std::int64_t kStartNs = 1'767'225'600'000'000'000;  // 2026-01-01T00:00:00Z
constexpr std::int64_t kIntervalNs = 100'000'000;

struct Phase {
  double tensor, fma, alu, issue, dram, l2, l1, sm_active, occupancy, gr_active, util, sm_mhz, power_w;
};
// idle; BF16 GEMM (tensor-bound); LLM decode (DRAM-bound); tiny kernels (busy engine, low SOL).
constexpr Phase kPhases[] = {
    {0.0, 0.0, 0.1, 0.2, 0.3, 0.3, 0.1, 0.5, 0.1, 0.5, 0.0, 345, 72},
    {84.0, 6.0, 9.0, 31.0, 34.0, 47.0, 28.0, 98.0, 24.0, 99.5, 100.0, 1755, 655},
    {5.0, 3.0, 11.0, 14.0, 88.0, 61.0, 19.0, 91.0, 44.0, 99.0, 100.0, 1980, 455},
    {1.5, 1.0, 3.0, 4.5, 3.5, 5.0, 2.0, 34.0, 5.0, 97.0, 100.0, 1980, 185},
};

auto wobble(double base, double t, int gpu, double amplitude) -> double {
  const double v = base + amplitude * std::sin(t * 1.7 + gpu) * std::cos(t * 0.31 + 2.0 * gpu);
  return v < 0 ? 0 : v;
}

auto sample(int gpu, std::int64_t n, double seconds) -> solscope::core::RawSample {
  const double t = static_cast<double>(n) * 0.1;
  const int phase = static_cast<int>(std::fmod(t + gpu * seconds / 8.0, seconds) / (seconds / 4.0)) % 4;
  const Phase& p = kPhases[phase];
  solscope::core::RawSample r;
  r.device_index = static_cast<std::uint32_t>(gpu);
  r.t_start_ns = kStartNs + n * kIntervalNs;
  r.t_end_ns = r.t_start_ns + kIntervalNs;
  r.source = solscope::core::SourceKind::PmSampling;
  const double a = phase == 0 ? 0.1 : 2.0;
  r.set(MetricId::TensorPipe, wobble(p.tensor, t, gpu, a));
  r.set(MetricId::FmaPipe, wobble(p.fma, t, gpu, a / 2));
  r.set(MetricId::AluPipe, wobble(p.alu, t, gpu, a / 2));
  r.set(MetricId::IssueActive, wobble(p.issue, t, gpu, a));
  r.set(MetricId::DramThroughput, wobble(p.dram, t, gpu, a));
  r.set(MetricId::L2Throughput, wobble(p.l2, t, gpu, a));
  r.set(MetricId::L1Wavefronts, wobble(p.l1, t, gpu, a));
  r.set(MetricId::SmActive, wobble(p.sm_active, t, gpu, a / 2));
  r.set(MetricId::SmOccupancy, wobble(p.occupancy, t, gpu, a / 2));
  r.set(MetricId::GrActive, std::min(100.0, wobble(p.gr_active, t, gpu, 0.3)));
  r.set(MetricId::GpuUtil, p.util);
  r.set(MetricId::SmClockMhz, p.sm_mhz);
  r.set(MetricId::MemClockMhz, 2619);
  r.set(MetricId::PowerW, wobble(p.power_w, t, gpu, 10));
  r.set(MetricId::PowerLimitW, 700);
  r.set(MetricId::TemperatureC, 35 + p.power_w / 20);
  r.set(MetricId::MemoryUsedBytes, phase == 0 ? 0.5e9 : 71.3e9);
  r.set(MetricId::MemoryTotalBytes, 85'899'345'920.0);
  return r;
}

auto device(int gpu) -> solscope::core::DeviceInfo {
  solscope::core::DeviceInfo d;
  d.index = static_cast<std::uint32_t>(gpu);
  d.uuid = "GPU-00000000-5917-4e71-0000-00000000000" + std::to_string(gpu);
  d.name = "SYNTHETIC demo GPU (H100-SXM-like)";
  d.chip = "GH100";
  d.pci_bus_id = "00000000:1" + std::to_string(gpu) + ":00.0";
  d.sm_count = 132;
  d.max_sm_clock_mhz = 1980;
  d.max_mem_clock_mhz = 2619;
  d.memory_total_bytes = 85'899'345'920;
  d.dram_peak_bytes_per_s = 5120.0 / 8 * 2619e6 * 2;
  return d;
}

constexpr int kMaxGpus = 64;
constexpr double kMaxSeconds = 86'400.0;

/// Parses the whole of `text` as a number into `out`; false when it is not one. NaN, infinity and negatives
/// parse, and the caller's range check refuses them.
template <typename T>
auto parse_whole(const char* text, T& out) -> bool {
  const std::string_view view(text);
  const auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), out);
  return !view.empty() && ec == std::errc() && end == view.data() + view.size();
}

/// Prints `error` and returns the exit status of a failed run.
auto fail(const solscope::core::Error& error) -> int {
  std::fprintf(stderr, "make_demo_trace: %s\n", error.describe().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: make_demo_trace OUT.sqlite [gpus=4] [seconds=120]\n");
    return 2;
  }
  int gpus = 4;
  double seconds = 120.0;
  if ((argc > 2 && !parse_whole(argv[2], gpus)) || (argc > 3 && !parse_whole(argv[3], seconds)) || gpus < 1 ||
      gpus > kMaxGpus || !(seconds >= 1.0 && seconds <= kMaxSeconds)) {
    std::fprintf(stderr, "make_demo_trace: gpus must be 1-%d and seconds 1-%g (no NaN, infinity or sign)\n",
                 kMaxGpus, kMaxSeconds);
    return 2;
  }
  solscope::trace::WriterOptions options;
  options.overwrite = true;
  options.synthetic = true;
  options.host = "synthetic";
  options.start_time_ns = kStartNs;
  options.source_description =
      "synthetic: demo phases (idle, GEMM, memory-bound decode, launch-bound) made up by "
      "tools/make_demo_trace.cpp; "
      "not a GPU recording";
  auto writer = solscope::trace::Writer::open(argv[1], options);
  if (!writer) return fail(writer.error());
  std::vector<solscope::core::DeviceInfo> devices;
  for (int g = 0; g < gpus; ++g) devices.push_back(device(g));
  if (auto r = writer->write_devices(devices); !r) return fail(r.error());
  const auto per_gpu = static_cast<std::int64_t>(seconds * 10);
  for (std::int64_t n = 0; n < per_gpu; ++n) {
    for (int g = 0; g < gpus; ++g) {
      const auto raw = sample(g, n, seconds);
      if (auto r = writer->append(raw, solscope::core::derive(raw, devices[static_cast<std::size_t>(g)]));
          !r) {
        return fail(r.error());
      }
    }
  }
  if (auto r = writer->close(); !r) return fail(r.error());
  return 0;
}
