// The SYNTHETIC 4-rank data-parallel step (dp_step.hpp, dp_step_scenario.md): made up, never measured.
#include "data/synthetic/dp_step.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "core/units.hpp"

namespace solscope::synthetic {

const char* const kDpOptimizerKernel =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4>, "
    "float*, float, float, float, float, float, float, bool, bool, float*, float*>(at::native::(anonymous "
    "namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4>, "
    "float*, float, float, float, float, float, float, bool, bool, float*, float*)";

namespace {

using core::kNsPerUs;
using core::MetricId;

constexpr std::int64_t kSampleNs = 10'000'000;  // 10 ms
constexpr double kBusyPct = 90.0;               // SM active and tensor pipe while compute kernels run
constexpr double kDramPct = 30.0;
constexpr double kNvlinkBytesPerS = 100e9;  // rx and tx each while NCCL kernels run

/// One kernel of a step, us after the step's start S_i.
struct StepKernel {
  const char* name;
  std::int64_t start_us;
  std::int64_t end_us;
  bool nccl;
};

/// Rank r's kernels of one step in start order (dp_step_scenario.md items 1, 2, 4, 3, 5, 6).
auto step_kernels(std::uint32_t rank) -> std::array<StepKernel, 6> {
  const std::int64_t f = kDpStepForwardUs[rank];
  const std::int64_t fmax = *std::max_element(kDpStepForwardUs.begin(), kDpStepForwardUs.end());
  return {{{kDpForwardKernel, 0, f, false},
           {kDpBackwardKernel, f, f + 20'000, false},
           {kDpBackwardKernel, f + 20'000, f + 40'000, false},
           {kDpAllReduceKernel, f + 20'050, fmax + 28'000, true},
           {kDpAllReduceKernel, f + 40'000, fmax + 48'000, true},
           {kDpOptimizerKernel, fmax + 48'000, fmax + 54'000, false}}};
}

auto step_start_ns(std::uint32_t step) -> std::int64_t {
  return kDpStepStartNs + static_cast<std::int64_t>(step) * kDpStepPeriodNs;
}

auto rank_kernels(std::uint32_t rank) -> std::vector<core::KernelRecord> {
  std::vector<core::KernelRecord> out;
  std::uint64_t correlation = 0;
  for (std::uint32_t step = 0; step < kDpStepSteps; ++step) {
    for (const StepKernel& s : step_kernels(rank)) {
      core::KernelRecord k;
      k.device = rank;
      k.start_ns = step_start_ns(step) + s.start_us * kNsPerUs;
      k.end_ns = step_start_ns(step) + s.end_us * kNsPerUs;
      k.pid = kDpStepFirstPid + static_cast<std::int32_t>(rank);
      k.stream = s.nccl ? kDpStepNcclStream : kDpStepComputeStream;
      k.correlation = ++correlation;
      k.grid = s.nccl ? std::array<std::uint32_t, 3>{2, 1, 1} : std::array<std::uint32_t, 3>{132, 1, 1};
      k.block = s.nccl ? std::array<std::uint32_t, 3>{640, 1, 1} : std::array<std::uint32_t, 3>{384, 1, 1};
      k.name = s.name;
      out.push_back(std::move(k));
    }
  }
  return out;
}

auto marker(std::uint32_t rank, std::int64_t start_ns, std::int64_t end_ns, std::uint32_t depth,
            const char* name) -> core::MarkerRecord {
  return {.pid = kDpStepFirstPid + static_cast<std::int32_t>(rank),
          .tid = kDpStepFirstPid + rank,
          .start_ns = start_ns,
          .end_ns = end_ns,
          .depth = depth,
          .domain = "",
          .name = name};
}

auto markers() -> std::vector<core::MarkerRecord> {
  std::vector<core::MarkerRecord> out;
  for (std::uint32_t rank = 0; rank < kDpStepRanks; ++rank) {
    for (std::uint32_t step = 0; step < kDpStepSteps; ++step) {
      const std::int64_t s = step_start_ns(step);
      out.push_back(marker(rank, s - 2'000 * kNsPerUs, s + 95'000 * kNsPerUs, 0, "train_step"));
      out.push_back(marker(rank, s - 1'500 * kNsPerUs, s + 1'000 * kNsPerUs, 1, "forward"));
      out.push_back(marker(rank, s + 80'000 * kNsPerUs, s + 80'000 * kNsPerUs, 1, "optimizer"));
    }
  }
  return out;
}

/// ns of [t0, t1) covered by the union of the NCCL kernels (nccl) or of the compute kernels (!nccl), told
/// apart by their stream.
auto covered_ns(const std::vector<core::KernelRecord>& kernels, bool nccl, std::int64_t t0, std::int64_t t1)
    -> std::int64_t {
  std::int64_t covered = 0;
  std::int64_t reached = t0;  // kernels come in start order
  for (const core::KernelRecord& k : kernels) {
    if ((k.stream == kDpStepNcclStream) != nccl) continue;
    const std::int64_t from = std::max(reached, k.start_ns);
    const std::int64_t to = std::min(t1, k.end_ns);
    if (to > from) covered += to - from;
    reached = std::max(reached, std::min(t1, k.end_ns));
  }
  return covered;
}

auto sample(const std::vector<core::KernelRecord>& kernels, std::uint32_t rank, std::uint32_t n)
    -> core::RawSample {
  core::RawSample r;
  r.device_index = rank;
  r.t_start_ns = kDpStepStartNs + static_cast<std::int64_t>(n) * kSampleNs;
  r.t_end_ns = r.t_start_ns + kSampleNs;
  r.source = core::SourceKind::PmSampling;
  const double compute = static_cast<double>(covered_ns(kernels, false, r.t_start_ns, r.t_end_ns)) /
                         static_cast<double>(kSampleNs);
  const double nccl = static_cast<double>(covered_ns(kernels, true, r.t_start_ns, r.t_end_ns)) /
                      static_cast<double>(kSampleNs);
  const double busy = std::min(1.0, compute + nccl);
  // The phases profile's tensor-bound load (profiles.cpp), scaled by the compute share.
  r.set(MetricId::SmActive, kBusyPct * compute);
  r.set(MetricId::TensorPipe, kBusyPct * compute);
  r.set(MetricId::DramThroughput, kDramPct * compute);
  r.set(MetricId::FmaPipe, 6.0 * compute);
  r.set(MetricId::AluPipe, 9.0 * compute);
  r.set(MetricId::IssueActive, 31.0 * compute);
  r.set(MetricId::L2Throughput, 47.0 * compute);
  r.set(MetricId::L1Wavefronts, 28.0 * compute);
  r.set(MetricId::SmOccupancy, 24.0 * compute);
  r.set(MetricId::GrActive, 100.0 * busy);
  r.set(MetricId::GpuUtil, busy > 0 ? 100.0 : 0.0);
  r.set(MetricId::NvlinkRxBytesPerS, kNvlinkBytesPerS * nccl);
  r.set(MetricId::NvlinkTxBytesPerS, kNvlinkBytesPerS * nccl);
  r.set(MetricId::PcieReadBytesPerS, 0.0);
  r.set(MetricId::PcieWriteBytesPerS, 0.0);
  r.set(MetricId::SmClockMhz, 1755);
  r.set(MetricId::MemClockMhz, 2619);
  const double power_w = 72.0 + 583.0 * compute;
  r.set(MetricId::PowerW, power_w);
  r.set(MetricId::PowerLimitW, 700);
  r.set(MetricId::TemperatureC, 35 + power_w / 20);
  r.set(MetricId::MemoryUsedBytes, 71.3e9);
  r.set(MetricId::MemoryTotalBytes, 85'899'345'920.0);
  return r;
}

}  // namespace

auto DpStep::all_kernels() const -> std::vector<core::KernelRecord> {
  std::vector<core::KernelRecord> out;
  for (const auto& rank : kernels) out.insert(out.end(), rank.begin(), rank.end());
  return out;
}

auto dp_step() -> DpStep {
  DpStep d;
  for (std::uint32_t rank = 0; rank < kDpStepRanks; ++rank) d.kernels[rank] = rank_kernels(rank);
  d.markers = markers();
  for (std::uint32_t n = 0; n < kDpStepSamples; ++n) {
    for (std::uint32_t rank = 0; rank < kDpStepRanks; ++rank)
      d.samples.push_back(sample(d.kernels[rank], rank, n));
  }
  return d;
}

}  // namespace solscope::synthetic
