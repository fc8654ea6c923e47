// The model of `solscope report`: per-GPU efficiency figures of one trace (or one `solscope run`), its phases
// and its costliest kernels. Pure data; report_builder.hpp computes it, report_json.hpp and report_text.hpp
// present it (docs/report.md lists every field with its unit).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/device_info.hpp"
#include "core/raw_sample.hpp"
#include "core/sol_terms.hpp"
#include "core/units.hpp"
#include "core/workload.hpp"
#include "report/training_steps.hpp"

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
