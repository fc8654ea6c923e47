// The model of `solscope report`: per-GPU efficiency figures of one trace (or one `solscope run`), its phases
// and its costliest kernels. Pure data; report_builder.hpp computes it, report_json.hpp and report_text.hpp
// present it (docs/report.md lists every field with its unit).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/device_info.hpp"
#include "core/enum_table.hpp"
#include "core/iteration.hpp"
#include "core/kernel_steps.hpp"
#include "core/raw_sample.hpp"
#include "core/sol_terms.hpp"
#include "core/units.hpp"
#include "core/workload.hpp"

namespace solscope::report {

/// Bound classes in the order the report lists them; index with bound_slot().
inline constexpr std::array<core::Bound, 5> kBoundOrder = {
    core::Bound::Idle, core::Bound::Compute, core::Bound::Memory, core::Bound::Latency, core::Bound::Unknown};
/// The index of `bound` in kBoundOrder.
[[nodiscard]] auto bound_slot(core::Bound bound) -> std::size_t;

/// Time-weighted figures over a stretch of samples (a GPU's whole trace, a phase, the time a kernel ran).
/// Every percentage is 0-100 of peak (kept raw above 100); NaN = unknown (no sample of the stretch knew it),
/// never 0.
struct Figures {
  double compute_sol_pct = core::kUnknown;       ///< busiest compute pipe (core::derive), weighted mean
  core::Pipe compute_pipe = core::Pipe::kCount;  ///< the pipe named with it; kCount when unknown
  double memory_sol_pct = core::kUnknown;        ///< busiest memory path, weighted mean
  core::MemPath memory_path = core::MemPath::kCount;
  double gpu_util_pct = core::kUnknown;   ///< classic utilization (nvidia-smi)
  double sm_active_pct = core::kUnknown;  ///< SM active (DCGM's SM activity)
  double mean_power_w = core::kUnknown;   ///< energy_j / the time power was known
  double energy_j = core::kUnknown;       ///< sum of power (W) x sample duration (s) where power is known
  std::int64_t power_known_ns = 0;        ///< sampled time in which power was known
};

/// Nanoseconds per bound class, indexed like kBoundOrder.
using BoundTimes = std::array<std::int64_t, kBoundOrder.size()>;

/// One phase of a GPU (phase_detection.hpp): a stretch of consecutive samples of one dominant bound class.
struct Phase {
  core::Bound bound = core::Bound::Unknown;  ///< the class holding most of the phase's sampled time
  std::int64_t start_ns = 0;                 ///< t_start_ns of its first sample (epoch ns)
  std::int64_t end_ns = 0;                   ///< t_end_ns of its last sample
  std::int64_t sampled_ns = 0;               ///< sum of its samples' durations
  std::uint64_t samples = 0;
  BoundTimes bound_ns{};  ///< its sampled time per class (short stretches of other classes merged into it)
  Figures figures;        ///< pipe and path: those that set the samples' SOL for the longest time
};

/// One kernel name on one GPU, over all its calls.
struct KernelRow {
  std::string name;
  std::uint64_t calls = 0;
  std::int64_t total_ns = 0;                ///< sum of the calls' durations
  double time_share_pct = 0.0;              ///< total_ns / all kernels' total_ns on this GPU x 100
  std::int64_t sampled_ns = 0;              ///< overlap of its calls with samples (the weight of its SOL)
  std::uint64_t overlapped_calls = 0;       ///< calls that another kernel on the same GPU overlapped
  double compute_sol_pct = core::kUnknown;  ///< sample-overlap-weighted mean; NaN without known samples
  core::Pipe compute_pipe = core::Pipe::kCount;
  double memory_sol_pct = core::kUnknown;
  core::MemPath memory_path = core::MemPath::kCount;
  [[nodiscard]] auto overlapped() const -> bool { return overlapped_calls > 0; }
};

/// A GPU's figures over time for the HTML report's charts (report_series.hpp): bounded buckets of its
/// samples. The four vectors have one length; NaN = unknown (or a break in the line).
struct Series {
  std::vector<std::int64_t> t_ns;      ///< each point's time (epoch ns): its bucket's first sample start
  std::vector<float> compute_sol_pct;  ///< duration-weighted mean over the bucket
  std::vector<float> memory_sol_pct;
  std::vector<float> gpu_util_pct;
};

// ---- Training steps (docs/report.md "Training steps"): per GPU the iterations of the kernel log
// (core::kernel_steps), or without kernels the iteration the samples show (core::estimate_iteration); across
// the GPUs, the straggler (core::find_straggler). detail/training_steps_build.hpp computes it.

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
  std::vector<GpuSteps> gpus;  ///< every GPU of the report (recorded, or with samples or kernels), ascending
  /// The ranks compared (every GPU with iterations of the one source used: the kernel log when any GPU has
  /// kernel iterations, else the samples' periodic GPUs), in GPU order.
  std::vector<core::RankSteps> ranks;
  std::vector<std::uint32_t> rank_devices;  ///< the device of each rank
  StepSource rank_source = StepSource::None;
  std::optional<core::StragglerVerdict> verdict;  ///< nullopt with fewer than two ranks
  bool markers_recorded = false;                  ///< the trace has an NVTX markers table (schema 6)
  std::uint64_t markers = 0;                      ///< its ranges and marks
};

/// Everything the report says about one GPU.
struct GpuReport {
  core::DeviceInfo device;  ///< as the trace recorded it (only the index when it did not)
  core::SourceKind source = core::SourceKind::None;  ///< of its last sample
  std::uint64_t samples = 0;
  std::int64_t start_ns = 0;    ///< first sample's t_start_ns; 0 without samples
  std::int64_t end_ns = 0;      ///< last sample's t_end_ns
  std::int64_t sampled_ns = 0;  ///< sum of sample durations
  Figures figures;              ///< the whole trace (core::WindowAccumulator's means and names)
  double attainable_compute_sol_pct = core::kUnknown;  ///< weighted mean where the ceiling model knew it
  double attainable_memory_sol_pct = core::kUnknown;
  double compute_headroom_pct = core::kUnknown;  ///< attainable - measured Compute SOL, percentage points
  double memory_headroom_pct = core::kUnknown;
  BoundTimes bound_ns{};
  std::int64_t min_phase_ns = 0;  ///< the minimum phase length used (phase_detection.hpp)
  std::vector<Phase> phases;
  std::uint64_t kernel_calls = 0;      ///< every kernel call on this GPU
  std::uint64_t kernel_names = 0;      ///< distinct kernel names on this GPU
  std::int64_t kernel_total_ns = 0;    ///< sum of every call's duration
  std::vector<KernelRow> top_kernels;  ///< by total_ns, longest first (ties: name), at most kTopKernels
  Series series;  ///< for the HTML report's charts (at most 2 x kSeriesBuckets points; not in --json)
};

/// One workload's totals over the trace (docs/report.md "Workloads"): what the trace's workloads table says
/// it held, with each sample's seconds shared out by core::workload_parts() (exclusive: all of them;
/// time-sliced: x its fraction; concurrent: all of them, under the identity the workloads agree on). Unknown
/// figures are NaN, never 0.
struct WorkloadReport {
  core::WorkloadIdentity id;  ///< concurrent: only the fields every workload on the GPU agreed on
  core::WorkloadSharing sharing = core::WorkloadSharing::kExclusive;
  std::vector<std::uint32_t> devices;  ///< the GPUs it held, ascending
  double gpu_s = 0.0;  ///< GPU-seconds: sample seconds x its fraction, summed over its samples
  double compute_sol_pct = core::kUnknown;  ///< mean weighted by its GPU-seconds, over samples that knew it
  double memory_sol_pct = core::kUnknown;
  double energy_j = core::kUnknown;  ///< power (W) x its GPU-seconds where power was known
  double idle_s = 0.0;  ///< its GPU-seconds in samples classified idle: allocated (or running) but idle
};

/// How many kernels the report lists per GPU.
inline constexpr std::size_t kTopKernels = 20;

/// What the report knows about the trace itself (filled by the caller).
struct TraceFacts {
  std::string path;
  bool synthetic = false;
  std::string source_description;
  std::string host;
  std::string tool_version;
  /// Where the kernel log came from (trace meta kernel_log: "cupti", "synthetic"); empty when the trace has
  /// none, so that "no kernels" is told apart from "none recorded".
  std::string kernel_log;
  std::uint64_t kernels_dropped = 0;  ///< kernel records the recorder lost (meta kernels_dropped)
  /// A workload refresh fed the trace's workloads table (meta workload_refresh); without one an empty table
  /// means "not recorded".
  bool workload_refresh = false;
  std::string command;      ///< `solscope run`'s command line (meta command); empty for other traces
  std::string exit_status;  ///< how that command ended (meta exit_status: "exit 3", "signal 15 (...)")
};

/// The whole report.
struct Report {
  TraceFacts trace;
  std::uint64_t samples = 0;
  std::uint64_t kernel_calls = 0;
  std::vector<GpuReport> gpus;  ///< by ascending device index
  /// The trace has a workloads table (schema 5): false for older traces, which say nothing about workloads.
  bool workloads_recorded = false;
  std::vector<WorkloadReport> workloads;  ///< most GPU-seconds first (ties: identity, then sharing)
  TrainingSteps training_steps;           ///< docs/report.md "Training steps"
};

}  // namespace solscope::report
