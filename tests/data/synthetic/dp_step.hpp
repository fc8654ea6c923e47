// The SYNTHETIC 4-rank data-parallel training step (tests/data/synthetic/dp_step_scenario.md; issue 25 item
// 5): the kernel log, the NVTX ranges and the samples of 4 GPUs running 6 steps of forward, backward with an
// overlapped and an exposed all-reduce, and an optimizer, rank 2 the straggler. Made up, never measured;
// every per-iteration figure follows by hand (the scenario file lists them).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/kernel_record.hpp"
#include "core/raw_sample.hpp"

namespace solscope::synthetic {

inline constexpr std::uint32_t kDpStepRanks = 4;  ///< devices 0..3, one process each
inline constexpr std::uint32_t kDpStepSteps = 6;  ///< steps 0..5; the last has no successor (not whole)
inline constexpr std::int64_t kDpStepPeriodNs = 100'000'000;               ///< 100,000 us
inline constexpr std::int64_t kDpStepStartNs = 1'700'000'000'000'000'000;  ///< T0 (= kStartNs)
/// The forward time of each rank, us (rank 2 is the straggler).
inline constexpr std::array<std::int64_t, kDpStepRanks> kDpStepForwardUs = {30'125, 30'250, 36'400, 30'000};
inline constexpr std::int32_t kDpStepFirstPid = 4100;  ///< rank r: pid = tid = 4100 + r
inline constexpr std::uint32_t kDpStepComputeStream = 7;
inline constexpr std::uint32_t kDpStepNcclStream = 13;
/// Samples per device: 10 ms each over [T0, T0 + 600 ms).
inline constexpr std::uint32_t kDpStepSamples = 60;

/// The names the scenario's kernels carry (the all-reduce as NCCL >= 2.19 names it, src/device/generate.py).
inline constexpr const char* kDpForwardKernel =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
    "kernel__5x_cublas";
inline constexpr const char* kDpBackwardKernel =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
    "kernel__5x_cublas";
inline constexpr const char* kDpAllReduceKernel = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL";
extern const char* const kDpOptimizerKernel;

/// The scenario: kernels[r] are rank r's (device r) in start order; markers of every rank (per step a
/// "train_step" range at depth 0, a nested "forward" range at depth 1 and an "optimizer" mark), in time
/// order per rank; samples in write order (sample n of every device, then n + 1).
struct DpStep {
  std::array<std::vector<core::KernelRecord>, kDpStepRanks> kernels;
  std::vector<core::MarkerRecord> markers;
  std::vector<core::RawSample> samples;
  /// Every rank's kernels in one list (device, then start order).
  [[nodiscard]] auto all_kernels() const -> std::vector<core::KernelRecord>;
};

[[nodiscard]] auto dp_step() -> DpStep;

}  // namespace solscope::synthetic
