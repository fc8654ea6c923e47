#include "data/synthetic/profiles.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/units.hpp"
#include "data/synthetic/iteration_trace.hpp"
#include "data/synthetic/synthetic_trace.hpp"
#include "trace/writer.hpp"

namespace solscope::synthetic {
namespace {

using core::MetricId;

constexpr std::int64_t kProfileStartNs = 1'767'225'600'000'000'000;  // 2026-01-01T00:00:00Z
constexpr double kMemoryTotalBytes = 85'899'345'920.0;
constexpr double kPhaseSeconds = 4.0;

/// One load, in percent (clock in MHz, power in W).
struct Load {
  double tensor, fma, alu, issue, dram, l2, l1, sm_active, occupancy, gr_active, util, sm_mhz, power_w;
};
// idle; BF16 GEMM (tensor-bound); LLM decode (DRAM-bound); tiny kernels (busy engine, low SOL).
constexpr Load kPhases[] = {
    {0.0, 0.0, 0.1, 0.2, 0.3, 0.3, 0.1, 0.5, 0.1, 0.5, 0.0, 345, 72},
    {84.0, 6.0, 9.0, 31.0, 34.0, 47.0, 28.0, 98.0, 24.0, 99.5, 100.0, 1755, 655},
    {5.0, 3.0, 11.0, 14.0, 88.0, 61.0, 19.0, 91.0, 44.0, 99.0, 100.0, 1980, 455},
    {1.5, 1.0, 3.0, 4.5, 3.5, 5.0, 2.0, 34.0, 5.0, 97.0, 100.0, 1980, 185},
};

/// The constant profile's load of GPU `gpu`: distinct per GPU so that label mix-ups show.
auto constant_load(std::uint32_t gpu) -> Load {
  return {20.0 + 15.0 * (gpu % 5),
          5.0,
          3.0,
          12.0,
          10.0 + 7.0 * (gpu % 7),
          6.0,
          4.0,
          90.0,
          30.0,
          96.0,
          100.0,
          1755.0,
          400.0 + gpu};
}

auto wobble(double base, double t, double gpu, double amplitude) -> double {
  return std::max(0.0, base + amplitude * std::sin(t * 1.7 + gpu) * std::cos(t * 0.31 + 2.0 * gpu));
}

/// A phase load with a deterministic wobble (none on clocks and utilization).
auto wobbled(const Load& p, double t, double gpu, bool idle) -> Load {
  const double a = idle ? 0.1 : 2.0;
  return {wobble(p.tensor, t, gpu, a),
          wobble(p.fma, t, gpu, a / 2),
          wobble(p.alu, t, gpu, a / 2),
          wobble(p.issue, t, gpu, a),
          wobble(p.dram, t, gpu, a),
          wobble(p.l2, t, gpu, a),
          wobble(p.l1, t, gpu, a),
          wobble(p.sm_active, t, gpu, a / 2),
          wobble(p.occupancy, t, gpu, a / 2),
          std::min(100.0, wobble(p.gr_active, t, gpu, 0.3)),
          p.util,
          p.sm_mhz,
          wobble(p.power_w, t, gpu, 10)};
}

auto load_at(const ProfileOptions& o, std::uint32_t gpu, double t) -> Load {
  if (o.profile == Profile::Constant) return constant_load(gpu);
  const int phase = phase_at(o, gpu, t);
  return wobbled(kPhases[phase], t, static_cast<double>(gpu), phase == 0);
}

auto raw_sample(const ProfileOptions& o, std::uint32_t gpu, std::int64_t n) -> core::RawSample {
  const std::int64_t interval_ns = core::kNsPerS / o.hz;
  const double t = static_cast<double>(n * interval_ns) / static_cast<double>(core::kNsPerS);
  const Load p = load_at(o, gpu, t);
  core::RawSample r;
  r.device_index = gpu;
  r.t_start_ns = o.start_ns + n * interval_ns;
  r.t_end_ns = r.t_start_ns + interval_ns;
  r.source = core::SourceKind::PmSampling;
  r.set(MetricId::TensorPipe, p.tensor);
  r.set(MetricId::FmaPipe, p.fma);
  r.set(MetricId::AluPipe, p.alu);
  r.set(MetricId::IssueActive, p.issue);
  r.set(MetricId::DramThroughput, p.dram);
  r.set(MetricId::L2Throughput, p.l2);
  r.set(MetricId::L1Wavefronts, p.l1);
  r.set(MetricId::SmActive, p.sm_active);
  r.set(MetricId::SmOccupancy, p.occupancy);
  r.set(MetricId::GrActive, p.gr_active);
  r.set(MetricId::GpuUtil, p.util);
  r.set(MetricId::SmClockMhz, p.sm_mhz);
  r.set(MetricId::MemClockMhz, 2619);
  r.set(MetricId::PowerW, p.power_w);
  r.set(MetricId::PowerLimitW, 700);
  r.set(MetricId::TemperatureC, 35 + p.power_w / 20);
  r.set(MetricId::MemoryUsedBytes, p.util > 0 ? 71.3e9 : 0.5e9);
  r.set(MetricId::MemoryTotalBytes, kMemoryTotalBytes);
  if (static_cast<int>(gpu) == o.attainable_device) {
    r.attainable_compute_sol_pct = 55.0;
    r.attainable_memory_sol_pct = 40.0;
  }
  return r;
}

auto profile_device(std::uint32_t gpu) -> core::DeviceInfo {
  core::DeviceInfo d = devices(gpu + 1).back();
  d.name = "SYNTHETIC GPU (H100-SXM-like)";
  return d;
}

auto profile_name(Profile p) -> std::string {
  switch (p) {
    case Profile::Random:
      return "random";
    case Profile::Demo:
      return "demo";
    case Profile::Phases:
      return "phases";
    case Profile::Constant:
      return "constant";
    case Profile::Training:
      return "training";
    case Profile::Serving:
      return "serving";
  }
  return "?";
}

}  // namespace

auto phase_at(const ProfileOptions& o, std::uint32_t gpu, double t) -> int {
  const auto g = static_cast<double>(gpu);
  switch (o.profile) {
    case Profile::Random:
    case Profile::Training:
    case Profile::Serving:
      return 0;
    case Profile::Constant:
      return 1;
    case Profile::Demo:
      return static_cast<int>(std::fmod(t + g * o.seconds / 8.0, o.seconds) / (o.seconds / 4.0)) % 4;
    case Profile::Phases:
      break;
  }
  return static_cast<int>((t + g * kPhaseSeconds / 2) / kPhaseSeconds) % 4;
}

auto parse_profile(std::string_view name) -> std::optional<Profile> {
  for (Profile p : {Profile::Random, Profile::Demo, Profile::Phases, Profile::Constant, Profile::Training,
                    Profile::Serving}) {
    if (profile_name(p) == name) return p;
  }
  return std::nullopt;
}

auto write_profile_trace(const std::filesystem::path& path, const ProfileOptions& options)
    -> core::Result<std::uint64_t> {
  if (options.devices < 1 || options.devices > 1024 || options.hz < 1 || options.hz > 10'000 ||
      !(options.seconds > 0 && options.seconds <= 86'400)) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "devices must be 1-1024, hz 1-10000, seconds (0, 86400]");
  }
  const auto per_device = static_cast<std::int64_t>(std::llround(options.seconds * options.hz));
  if (options.profile == Profile::Random) {
    if (options.kernels) {
      return core::fail(
          core::ErrorCode::InvalidArgument,
          "synthetic kernels follow a profile's phases: use --profile demo, phases or constant");
    }
    return write_trace(path, options.devices, static_cast<std::uint64_t>(per_device), options.seed,
                       {.overwrite = options.overwrite, .start_time_ns = options.start_ns});
  }
  ProfileOptions o = options;
  if (o.start_ns == 0) o.start_ns = kProfileStartNs;
  trace::WriterOptions w;
  w.overwrite = o.overwrite;
  w.host = "synthetic";
  w.start_time_ns = o.start_ns;
  w.source_description = "synthetic: " + profile_name(o.profile) +
                         " profile of solscope_make_synthetic_trace (" + std::to_string(o.devices) +
                         " GPUs x " + std::to_string(o.hz) + " Hz); never measured on a GPU";
  std::vector<core::DeviceInfo> devs;
  for (std::uint32_t g = 0; g < o.devices; ++g) devs.push_back(profile_device(g));
  if (o.profile == Profile::Training || o.profile == Profile::Serving) {
    if (o.kernels || !(o.iteration.period_s > 0)) {
      return core::fail(core::ErrorCode::InvalidArgument,
                        "the training and serving profiles take no --kernels and need --period > 0");
    }
    return write_iteration_trace(path, o, std::move(w), devs);
  }
  if (o.kernels) w.source_description += "; with a synthetic kernels table";
  const std::vector<core::KernelRecord> kernels =
      o.kernels ? synthetic_kernels(o) : std::vector<core::KernelRecord>{};
  return write_samples(
      path, std::move(w), devs, static_cast<std::uint64_t>(per_device),
      [&o](std::uint32_t g, std::uint64_t n) { return raw_sample(o, g, static_cast<std::int64_t>(n)); },
      o.kernels ? &kernels : nullptr);
}

}  // namespace solscope::synthetic
