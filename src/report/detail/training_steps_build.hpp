// StepCollector: gathers what the report's Training steps (report/report.hpp) are found in while the
// trace streams past: each GPU's kernel calls (compact, names once per GPU), the job's NVTX markers, and
// each GPU's samples as core::IterationPoint in windows of core::kIterationWindowNs.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/iteration.hpp"
#include "core/kernel_record.hpp"
#include "core/sol_sample.hpp"
#include "report/report.hpp"

namespace solscope::report {

/// Feed it the kernel calls (any order) and the markers, then every sample (each device's in nondecreasing
/// t_start_ns), then finish(). Memory: kBytesPerCall per kernel call plus each distinct name once per GPU;
/// per GPU at most one window of sample points (core::kIterationWindowNs) and one estimate per window; the
/// markers as given. finish() builds the KernelRecords of one GPU at a time (at most kMaxStepKernelsPerGpu).
/// Not thread-safe.
class StepCollector {
 public:
  /// Bytes kept per kernel call (docs/report.md, "Cost").
  static constexpr std::size_t kBytesPerCall = 32;

  void add_kernel(const core::KernelRecord& kernel);
  /// The trace's markers table (trace::Reader::markers); `present` false for a trace without one.
  void set_markers(std::vector<core::MarkerRecord> markers, bool present, std::string step_range);
  void add(const core::SolSample& sample);

  /// The training steps of every device in `labels` (device index, label) and every device with kernels or
  /// samples, ascending. Leaves the collector empty.
  [[nodiscard]] auto finish(const std::vector<std::pair<std::uint32_t, std::string>>& labels)
      -> TrainingSteps;

 private:
  struct Call {  // kBytesPerCall
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
    std::int32_t pid = 0;
    std::uint32_t stream = 0;
    std::uint32_t name = 0;  ///< index into KernelLane::names
  };
  static_assert(sizeof(Call) == kBytesPerCall, "docs/report.md promises 32 bytes per call");
  struct KernelLane {
    std::vector<std::string> names;
    std::unordered_map<std::string, std::uint32_t> index;
    std::deque<Call> calls;
  };
  struct SampleLane {
    std::vector<core::IterationPoint> points;  ///< the current window
    std::vector<core::IterationEstimate> estimates;
  };
  [[nodiscard]] auto kernel_records(KernelLane& lane, GpuSteps& gpu) const -> std::vector<core::KernelRecord>;
  void fill_from_kernels(GpuSteps& gpu, KernelLane& lane, std::vector<core::KernelIteration>& all) const;
  static void fill_from_samples(GpuSteps& gpu, SampleLane& lane);

  std::map<std::uint32_t, KernelLane> kernels_;
  std::map<std::uint32_t, SampleLane> samples_;
  std::vector<core::MarkerRecord> markers_;
  bool markers_present_ = false;
  core::StepOptions step_options_;
};

/// Percentiles and mean of `values_ns` (any order; sorted here) as a StepStat, share_pct against
/// `total_iteration_ns` (NaN when that is 0). All NaN for no values.
[[nodiscard]] auto step_stat(std::vector<std::int64_t> values_ns, std::int64_t total_iteration_ns)
    -> StepStat;

/// The index of the median iteration by length: the lower median of the lengths (ties: the earliest).
[[nodiscard]] auto median_iteration(std::span<const core::KernelIteration> iterations) -> std::size_t;

/// The strip of `iteration` from `kernels` (one GPU's, sorted by start_ns): compute alone, communication
/// alone (exposed), both (overlapped) and neither (idle), relative to its start, neighbours of one kind
/// merged; folded into kMaxStripSegments equal bins (each the kind holding most of its time) when longer.
[[nodiscard]] auto iteration_strip(const core::KernelIteration& iteration,
                                   std::span<const core::KernelRecord> kernels) -> std::vector<StripSegment>;

}  // namespace solscope::report
