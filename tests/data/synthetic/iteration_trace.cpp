#include "data/synthetic/iteration_trace.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <utility>

#include "core/units.hpp"
#include "data/synthetic/synthetic_trace.hpp"

namespace solscope::synthetic {
namespace {

using core::MetricId;

/// One load's figures (index with Figure): percentages, except the byte rates (bytes/s) and power (W).
enum Figure : std::size_t {
  kTensor,
  kFma,
  kAlu,
  kIssue,
  kDram,
  kL2,
  kL1,
  kSmActive,
  kOccupancy,
  kGrActive,
  kUtil,
  kPowerW,
  kNvlink,
  kPcie,
  kFigures
};
using Load = std::array<double, kFigures>;
// BF16 GEMM (tensor-bound); an NCCL all-reduce over NVLink (SMs mostly waiting); idle; LLM decode
// (DRAM-bound).
constexpr Load kCompute = {84.0, 6.0, 9.0, 31.0, 34.0, 47.0, 28.0, 98.0, 24.0, 99.5, 100.0, 655.0, 0.0, 5e7};
constexpr Load kAllReduce = {0.0, 1.0, 4.0, 3.0, 12.0, 15.0, 3.0, 12.0, 3.0, 99.0, 100.0, 300.0, 150e9, 5e7};
constexpr Load kIdle = {0.0, 0.0, 0.1, 0.2, 0.3, 0.3, 0.1, 0.5, 0.1, 0.5, 0.0, 72.0, 0.0, 5e7};
constexpr Load kDecode = {5.0, 3.0, 11.0, 14.0, 88.0, 61.0, 19.0, 91.0, 44.0, 99.0, 100.0, 455.0, 0.0, 2e9};

/// The sum of share x load, each figure with its own normal noise of `noise_pct` % of it.
auto mix(const std::vector<std::pair<double, Load>>& parts, double noise_pct, std::mt19937_64& rng) -> Load {
  std::normal_distribution<double> normal(0.0, noise_pct / 100.0);
  Load m{};
  for (const auto& [share, load] : parts) {
    for (std::size_t k = 0; k < kFigures; ++k) m[k] += share * load[k];
  }
  for (double& v : m) v = std::max(0.0, v * (1.0 + normal(rng)));
  m[kGrActive] = std::min(100.0, m[kGrActive]);
  return m;
}

auto raw_sample(std::uint32_t gpu, std::int64_t start_ns, std::int64_t interval_ns, const Load& p)
    -> core::RawSample {
  core::RawSample r;
  r.device_index = gpu;
  r.t_start_ns = start_ns;
  r.t_end_ns = start_ns + interval_ns;
  r.source = core::SourceKind::PmSampling;
  r.set(MetricId::TensorPipe, p[kTensor]);
  r.set(MetricId::FmaPipe, p[kFma]);
  r.set(MetricId::AluPipe, p[kAlu]);
  r.set(MetricId::IssueActive, p[kIssue]);
  r.set(MetricId::DramThroughput, p[kDram]);
  r.set(MetricId::L2Throughput, p[kL2]);
  r.set(MetricId::L1Wavefronts, p[kL1]);
  r.set(MetricId::SmActive, p[kSmActive]);
  r.set(MetricId::SmOccupancy, p[kOccupancy]);
  r.set(MetricId::GrActive, p[kGrActive]);
  r.set(MetricId::GpuUtil, p[kUtil]);
  r.set(MetricId::PowerW, p[kPowerW]);
  r.set(MetricId::PowerLimitW, 700);
  r.set(MetricId::NvlinkRxBytesPerS, p[kNvlink]);
  r.set(MetricId::NvlinkTxBytesPerS, p[kNvlink]);
  r.set(MetricId::PcieReadBytesPerS, p[kPcie]);
  return r;
}

}  // namespace

auto training_shape(const ProfileOptions& options, std::uint32_t gpu) -> TrainingShape {
  return {.period_s = options.iteration.period_s,
          .jitter_pct = options.iteration.jitter_pct,
          .drift_pct = options.iteration.drift_pct,
          .first_start_s = 0.1 * gpu,
          .seconds = options.seconds,
          .seed = options.seed + gpu};
}

auto serving_shape(const ProfileOptions& options, std::uint32_t gpu) -> ServingShape {
  return {.seconds = options.seconds, .seed = options.seed + gpu};
}

auto write_iteration_trace(const std::filesystem::path& path, const ProfileOptions& options,
                           trace::WriterOptions writer, const std::vector<core::DeviceInfo>& devs)
    -> core::Result<std::uint64_t> {
  const bool training = options.profile == Profile::Training;
  std::vector<std::vector<double>> starts;
  std::vector<std::vector<std::pair<double, double>>> busy;
  for (std::uint32_t g = 0; g < options.devices; ++g) {
    if (training) {
      starts.push_back(training_starts(training_shape(options, g)));
    } else {
      busy.push_back(serving_busy(serving_shape(options, g)));
    }
  }
  std::mt19937_64 rng(options.seed);
  const std::int64_t interval_ns = core::kNsPerS / options.hz;
  const double interval_s = 1.0 / options.hz;
  const auto per_device = static_cast<std::uint64_t>(std::llround(options.seconds * options.hz));
  return write_samples(path, std::move(writer), devs, per_device, [&](std::uint32_t g, std::uint64_t n) {
    const double a = static_cast<double>(n) * interval_s;
    std::vector<std::pair<double, Load>> parts;
    if (training) {
      const auto s = training_shares(training_shape(options, g), starts[g], a, a + interval_s);
      parts = {{s.compute, kCompute}, {s.communication, kAllReduce}, {s.idle, kIdle}};
    } else {
      const double b = busy_share(busy[g], a, a + interval_s);
      parts = {{b, kDecode}, {1.0 - b, kIdle}};
    }
    return raw_sample(g, options.start_ns + static_cast<std::int64_t>(n) * interval_ns, interval_ns,
                      mix(parts, options.iteration.noise_pct, rng));
  });
}

}  // namespace solscope::synthetic
