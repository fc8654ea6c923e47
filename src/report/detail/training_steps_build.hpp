// StepCollector: gathers what the report's Training steps (report/report.hpp) are found in while the
// trace streams past: each GPU's kernel calls (compact, names once per GPU), the job's NVTX markers, and
// each GPU's samples as core::IterationPoint in windows of core::kIterationWindowNs.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/iteration.hpp"
#include "core/kernel_record.hpp"
#include "core/sol_sample.hpp"
#include "core/units.hpp"
#include "report/detail/kernel_join.hpp"
#include "report/report.hpp"

namespace solscope::report {

/// `ns` in ms (core::kNsPerMs), the unit of every Training steps figure.
inline auto ms_of(std::int64_t ns) -> double {
  return static_cast<double>(ns) / static_cast<double>(core::kNsPerMs);
}

/// Feed it the markers, then every sample (each device's in nondecreasing t_start_ns), then finish() with
/// the report's KernelJoin, which holds the kernel calls. Memory: per GPU at most one window of sample points
/// (core::kIterationWindowNs) and one estimate per window; the markers as given. finish() builds the
/// KernelRecords of one GPU at a time (at most kMaxStepKernelsPerGpu, KernelJoin::records). Not thread-safe.
class StepCollector {
 public:
  /// The trace's markers table (trace::Reader::markers); `present` false for a trace without one.
  void set_markers(std::vector<core::MarkerRecord> markers, bool present, std::string step_range);
  void add(const core::SolSample& sample);

  /// The training steps of every device in `labels` (device index, label; every GPU of the report: recorded,
  /// with kernels or with samples), in their (ascending) order. Leaves the collector empty.
  [[nodiscard]] auto finish(const std::vector<std::pair<std::uint32_t, std::string>>& labels,
                            const KernelJoin& kernels) -> TrainingSteps;

 private:
  struct SampleLane {
    std::vector<core::IterationPoint> points;  ///< the current window
    std::vector<core::IterationEstimate> estimates;
  };
  void fill_from_kernels(GpuSteps& gpu, std::vector<core::KernelRecord> records,
                         std::vector<core::KernelIteration>& all) const;
  static void fill_from_samples(GpuSteps& gpu, SampleLane& lane);

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
