// The "Training steps" part of `solscope report` (docs/report.md "Training steps"): per GPU the iterations of
// the kernel log (core::kernel_steps: compute, communication, exposed communication, their percentiles and
// the collective mix, and the median iteration as a strip of segments), or without kernels the iteration the
// samples show (core::estimate_iteration); across the GPUs, the straggler (core::find_straggler). Pure data;
// detail/training_steps_build.hpp computes it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/enum_table.hpp"
#include "core/iteration.hpp"
#include "core/kernel_steps.hpp"
#include "core/units.hpp"

namespace solscope::report {

/// Iterations kept per GPU for the JSON (the first ones; every iteration counts in the percentiles).
inline constexpr std::size_t kMaxStepIterations = 1000;
/// Iterations listed per GPU in the text (the first ones).
inline constexpr std::size_t kTextStepIterations = 20;
/// Kernel calls per GPU that the iterations are found in (the earliest; docs/report.md "Cost").
inline constexpr std::size_t kMaxStepKernelsPerGpu = 1'000'000;
/// Segments of the median iteration's strip; beyond, the strip is folded into this many equal bins.
inline constexpr std::size_t kMaxStripSegments = 256;

/// One figure over a GPU's iterations: linearly interpolated percentiles (rank p/100 x (n - 1) over the
/// sorted values, Hyndman-Fan type 7, numpy's default) and the mean, milliseconds; share_pct = the figure's
/// sum / the iterations' summed length x 100 (0-100).
struct StepStat {
  double p50_ms = core::kUnknown;
  double p90_ms = core::kUnknown;
  double p99_ms = core::kUnknown;
  double mean_ms = core::kUnknown;
  double share_pct = core::kUnknown;
};

/// What a stretch of the median iteration does: compute kernels alone, communication alone (exposed), both
/// (communication overlapped by compute), or no kernel (idle).
enum class StripKind : std::uint8_t { Compute, Exposed, Overlapped, Idle, kCount };
inline constexpr std::size_t kStripKindCount = static_cast<std::size_t>(StripKind::kCount);
inline constexpr core::EnumNames<StripKind, kStripKindCount> kStripKindNames(
    {"compute", "exposed_communication", "overlapped_communication", "idle"}, "unknown");
[[nodiscard]] constexpr auto to_string(StripKind kind) -> std::string_view {
  return kStripKindNames(kind);
}

/// One segment of the strip, [start_ns, end_ns) from the iteration's start.
struct StripSegment {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  StripKind kind = StripKind::Idle;
};

/// Where a GPU's iteration figures come from.
enum class StepSource : std::uint8_t { None, KernelLog, Samples };
inline constexpr core::EnumNames<StepSource, 3> kStepSourceNames({"none", "kernel_log", "samples"},
                                                                 "unknown");
[[nodiscard]] constexpr auto to_string(StepSource source) -> std::string_view {
  return kStepSourceNames(source);
}

/// One GPU's training steps.
struct GpuSteps {
  std::uint32_t device = 0;
  std::string label;  ///< core::device_label ("GPU 2")
  StepSource source = StepSource::None;
  // --- source == KernelLog (core::kernel_steps) ---
  core::StepBoundary boundary = core::StepBoundary::None;
  std::string nvtx_range;  ///< the range name, when boundary == Nvtx
  std::size_t iteration_count = 0;
  std::vector<core::KernelIteration> iterations;  ///< the first kMaxStepIterations, in time order
  StepStat iteration, compute, communication, exposed;
  /// Per collective (index core::Collective): its time / all communication time x 100, summed over the
  /// iterations; a kernel time of two collectives at once counts in both.
  std::array<double, core::kCollectiveCount> collective_pct{};
  std::size_t median_iteration = 0;  ///< index (into every iteration) of the strip's iteration
  std::int64_t median_length_ns = 0;
  std::vector<StripSegment> strip;  ///< the median iteration, in time order, neighbours of one kind merged
  std::uint64_t kernels_used = 0;   ///< kernel calls the iterations were looked for in
  std::uint64_t kernels_left = 0;   ///< calls beyond kMaxStepKernelsPerGpu, not looked at
  // --- source == Samples (core::estimate_iteration) ---
  core::IterationEstimate estimate;  ///< the shown window's estimate (periodic or not)
  std::size_t windows = 0;           ///< windows of core::kIterationWindowNs estimated
  std::size_t periodic_windows = 0;  ///< of those, periodic
  std::string note;  ///< why there are no iterations, or what was approximate; empty otherwise
};

/// The trace's training steps.
struct TrainingSteps {
  std::vector<GpuSteps> gpus;  ///< every GPU with samples or kernels, ascending
  /// The ranks compared (every GPU with iterations of the one source used: the kernel log when any GPU has
  /// kernel iterations, else the samples' periodic GPUs), in GPU order.
  std::vector<core::RankSteps> ranks;
  std::vector<std::uint32_t> rank_devices;  ///< the device of each rank
  StepSource rank_source = StepSource::None;
  std::optional<core::StragglerVerdict> verdict;  ///< nullopt with fewer than two ranks
  bool markers_recorded = false;                  ///< the trace has an NVTX markers table (schema 6)
  std::uint64_t markers = 0;                      ///< its ranges and marks
};

}  // namespace solscope::report
