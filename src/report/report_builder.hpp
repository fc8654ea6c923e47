// ReportBuilder: computes `solscope report`'s figures (report.hpp) from the SOL samples of a trace and its
// kernel log, in one pass over the samples.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "core/device_info.hpp"
#include "core/kernel_record.hpp"
#include "core/sol_sample.hpp"
#include "core/window.hpp"
#include "report/detail/kernel_join.hpp"
#include "report/detail/phase_detection.hpp"
#include "report/detail/sample_bins.hpp"
#include "report/detail/training_steps_build.hpp"
#include "report/detail/workload_totals.hpp"
#include "report/report.hpp"

namespace solscope::report {

/// Feed it the kernel log (add_kernel, any order), then every sample (core::derive figures, each device's
/// samples in nondecreasing t_start_ns, as trace::Reader returns them), then take the report. Memory does not
/// grow with the samples: per GPU at most kMaxSampleBins bins (about 2 MB, sample_bins.hpp), plus
/// KernelJoin::kBytesPerCall per kernel call and one entry per distinct kernel name. Not thread-safe.
///
/// Per GPU: the whole-trace figures are core::WindowAccumulator's duration-weighted means (unknown values
/// skipped; pipe and path: highest mean), energy is the sum of power x duration over the samples with a known
/// power, headroom is the attainable SOL's mean minus the measured mean (percentage points; unknown unless
/// both are known), time per bound class sums sample durations by core::derive's class, phases come from
/// detect_phases() with min_phase_ns(sampled time), and kernels from KernelJoin. Per workload:
/// WorkloadTotals. Training steps: StepCollector (detail/training_steps_build.hpp).
class ReportBuilder {
 public:
  /// `devices`: as the trace recorded them. `kernels`: kernel calls to add_kernel() now (may be empty); only
  /// read here.
  explicit ReportBuilder(std::span<const core::DeviceInfo> devices,
                         std::span<const core::KernelRecord> kernels = {});

  /// Adds one kernel call of the trace's kernel log (trace::Reader::for_each_kernel); only before the first
  /// sample (later calls are ignored). The record is only read here.
  void add_kernel(const core::KernelRecord& kernel);

  /// Gives the trace's workloads table (Reader::workloads(), schema 5); only before the first sample (later
  /// calls are ignored). Without a call the report says the trace holds no workload information.
  void set_workloads(std::span<const core::WorkloadInterval> rows);

  /// Gives the trace's NVTX markers (Reader::markers(), schema 6; `present` false without a markers table)
  /// for the Training steps' boundaries, and the name of the range that marks one step (`report
  /// --step-range`; empty = the outermost range name repeated most often, core::StepOptions); only before the
  /// first sample (later calls are ignored).
  void set_markers(std::vector<core::MarkerRecord> markers, bool present, std::string step_range = {});

  /// Adds one sample.
  void add(const core::SolSample& sample);

  /// The report: every recorded device, and every device that has samples or kernels, by ascending index.
  [[nodiscard]] auto finish(TraceFacts facts) -> Report;

 private:
  struct Lane {
    core::DeviceInfo device;
    core::SourceKind source = core::SourceKind::None;
    std::uint64_t samples = 0;
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
    std::int64_t sampled_ns = 0;
    double energy_j = 0.0;
    std::int64_t power_known_ns = 0;
    BoundTimes bound_ns{};
    core::WindowAccumulator total;
    SampleBins bins;
  };
  auto lane(std::uint32_t device) -> Lane&;
  [[nodiscard]] auto gpu_report(Lane& lane) const -> GpuReport;

  std::map<std::uint32_t, Lane> lanes_;
  KernelJoin kernels_;
  WorkloadTotals workloads_;
  StepCollector steps_;
  bool workloads_recorded_ = false;
  std::uint64_t samples_ = 0;
  std::uint64_t kernel_calls_ = 0;
};

}  // namespace solscope::report
