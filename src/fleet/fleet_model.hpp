// The fleet view's data: one row per GPU (host x GPU) read from a Prometheus server, with the figures now and
// over a window, the GPU-hours of "busy but doing little" (high classic utilization, low Compute SOL) and
// stragglers against their node's or job's median; and one GPU's history for its detail view.
//
// Rows come from solscope's own series (`solscope_*`, docs/http-api.md) where present, otherwise from
// dcgm-exporter's (`DCGM_FI_PROF_*`, core/dcgm_fields.hpp: Compute SOL = the busiest of tensor/FP64/FP32/FP16
// pipe active, Memory SOL = DRAM active). The terminal view (`solscope fleet`) and the web dashboard
// (`solscope serve --prometheus URL`, GET /api/v1/fleet) show the same FleetSnapshot.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/raw_sample.hpp"
#include "core/result.hpp"

namespace solscope::fleet {

/// Which series a row was read from.
enum class SeriesKind : std::uint8_t { Solscope, Dcgm };

/// One GPU of the fleet. (host, gpu) is unique within a snapshot.
struct GpuKey {
  std::string host;  ///< `Hostname` (dcgm-exporter) or `host`/`instance` label
  std::string gpu;   ///< GPU index on the host as the series label it ("0"), "3/1g.10gb/2" for MIG
  /// How views name it (core::device_label): "GPU 0", "GPU 3 \u00b7 MIG 1g.10gb #2"; "GPU <gpu label>" when
  /// the `gpu` label is not an index.
  std::string label;
  std::string uuid;        ///< "GPU-..." when the series carry it; empty otherwise
  std::string model_name;  ///< "NVIDIA H100 80GB HBM3" when known
  std::string job;  ///< "namespace/pod" (or Prometheus `job` label) for the straggler groups; empty = none
};

/// A GPU's figures over a window, from its step series (fleet_math.hpp: window_figures). Percentages 0-100
/// (NaN = unknown; never 0 for unknown).
struct WindowFigures {
  double compute_sol_pct = core::kUnknown;  ///< newest known value in the window
  double memory_sol_pct = core::kUnknown;
  double gpu_util_pct = core::kUnknown;          ///< classic utilization (nvidia-smi's)
  double compute_sol_mean_pct = core::kUnknown;  ///< mean of the known values, every step weighted alike
  double memory_sol_mean_pct = core::kUnknown;
  double gpu_util_mean_pct = core::kUnknown;
  /// GPU-hours in the window where classic utilization > 80 % and Compute SOL < 20 %, both known
  /// (fleet_math.hpp: kBusyUtilPct, kIdleComputeSolPct): each such step counts step_ns / 3600 s.
  double busy_idle_gpu_hours = 0;
};

/// One GPU of the fleet: its window figures, and how it compares with its group.
struct FleetRow : WindowFigures {
  GpuKey key;
  SeriesKind series = SeriesKind::Solscope;
  /// Compute SOL mean minus the median of its group (same job when known, else same host); NaN when alone.
  double straggler_gap_pct = core::kUnknown;
  bool straggler = false;  ///< straggler_gap_pct below -kStragglerGapPct
  /// The training iteration (solscope's `solscope_iteration_*` series, exported only while the GPU's activity
  /// is periodic: docs/fleet.md "Iteration stragglers"): the mean over the window's steps where it was
  /// periodic; NaN when it never was (the table shows "-").
  double iteration_s = core::kUnknown;  ///< seconds per iteration, > 0
  /// 0-1: the share of the iteration the SMs work (its compute, memory and latency parts;
  /// core::IterationEstimate::compute_ratio, exported as `solscope_iteration_compute_ratio`).
  double compute_ratio = core::kUnknown;
  /// 0-1: the share the interconnect is busy while the SMs wait (shown; not part of the compute rule).
  double exposed_communication_ratio = core::kUnknown;
  /// Seconds of the iteration the SMs work: iteration_s x compute_ratio, the one rule for a rank's compute
  /// (core::rank_steps); NaN when either is unknown.
  double iteration_compute_s = core::kUnknown;
  /// The value of the chosen job label (FleetQuery::job_label) on its iteration series; empty when none was
  /// chosen or the series lack it.
  std::string job_label_value;
  /// The group its iteration is compared in (fleet/detail/fleet_iteration.hpp iteration_group()); empty when
  /// not periodic.
  std::string iteration_group;
  bool iteration_straggler = false;  ///< the straggler of its group (core::find_straggler)
};

/// One group of GPUs (a job) compared by iteration time: core::find_straggler over its periodic GPUs.
struct IterationGroup {
  std::string group;         ///< fleet/detail/fleet_iteration.hpp iteration_group(): "job:ml/train-0",
                             ///< "host:node-1", "hpc_job=42"
  std::vector<GpuKey> gpus;  ///< its periodic GPUs, in (host, GPU) natural order
  GpuKey straggler;          ///< the GPU whose compute takes longest
  double straggler_compute_s = core::kUnknown;  ///< its iteration_compute_s
  double median_compute_s = core::kUnknown;     ///< the median of the group's iteration_compute_s
  double spread_pct = core::kUnknown;  ///< (straggler's compute - median compute) / median x 100, >= 0
  double iteration_spread_pct = core::kUnknown;  ///< (max - min iteration_s) / median iteration_s x 100
};

/// A fleet at one moment.
struct FleetSnapshot {
  std::vector<FleetRow> rows;        ///< sorted by (host, gpu)
  std::int64_t window_start_ns = 0;  ///< Unix ns
  std::int64_t window_end_ns = 0;
  std::int64_t step_ns = 0;  ///< query_range step used
  std::string source;        ///< "prometheus at https://prom:9090, selector {cluster=\"a\"}"
  /// Each limit that cut the answer ("series limit 10000 reached: 312 GPUs not shown"), and other notes.
  std::vector<std::string> notes;
  /// The groups of two or more periodic GPUs, compared by iteration time (fleet/detail/fleet_iteration.hpp
  /// mark_iteration_stragglers()), in group order.
  std::vector<IterationGroup> iteration_groups;
  std::string job_label;  ///< the label the groups were made by (FleetQuery::job_label); empty = the default
};

/// One point of a GPU's history.
struct HistoryPoint {
  std::int64_t t_ns = 0;
  double compute_sol_pct = core::kUnknown;
  double memory_sol_pct = core::kUnknown;
  double gpu_util_pct = core::kUnknown;
};

/// One GPU over the window (the fleet view's Enter).
struct GpuHistory {
  GpuKey key;
  SeriesKind series = SeriesKind::Solscope;
  std::vector<HistoryPoint> points;  ///< in time order
  std::vector<std::string> notes;
};

/// How `solscope fleet --by` groups the fleet's GPUs into workloads, by the dcgm-exporter labels that
/// solscope's series carry while one workload holds a GPU (docs/fleet.md "Workloads").
enum class GroupBy : std::uint8_t {
  Namespace,  ///< label `namespace`
  Pod,        ///< labels `namespace` and `pod` ("namespace/pod")
  Job,        ///< label `hpc_job` (a Slurm job)
};

/// One workload group over the window (fleet_math.hpp workload_row()). GPU-hours >= 0.
struct WorkloadRow {
  std::string
      group;  ///< "ml" (namespace), "ml/train-1" (pod; the pod alone without a namespace), "1234" (job)
  std::size_t gpus = 0;            ///< distinct GPUs (hostname, gpu, UUID, MIG instance) that counted for it
  double allocated_gpu_hours = 0;  ///< GPU-hours counted for it in the window, every bound class
  double idle_gpu_hours = 0;       ///< of those, bound class "idle": allocated but idle
  /// Busy-idle GPU-hours (WindowFigures::busy_idle_gpu_hours) of the GPUs whose series carried its label.
  double busy_idle_gpu_hours = 0;
  double wasted_gpu_hours = 0;                   ///< idle_gpu_hours + busy_idle_gpu_hours
  double compute_sol_mean_pct = core::kUnknown;  ///< mean over its GPUs' steps (each step alike), 0-100
};

/// A fleet's workloads over a window.
struct WorkloadRollup {
  GroupBy by = GroupBy::Namespace;
  std::vector<WorkloadRow> rows;     ///< most wasted GPU-hours first (fleet_math.hpp sort_workloads())
  std::int64_t window_start_ns = 0;  ///< Unix ns
  std::int64_t window_end_ns = 0;
  std::int64_t step_ns = 0;        ///< subquery step of the busy-idle and Compute SOL figures
  std::string source;              ///< as FleetSnapshot::source
  std::vector<std::string> notes;  ///< why the roll-up is empty, and other notes
};

/// Where fleet figures come from: the Prometheus reader (prometheus_fleet.hpp), or a fake in tests.
/// One thread at a time.
class FleetProvider {
 public:
  virtual ~FleetProvider() = default;
  /// The fleet now, over the provider's window. Errors: Unavailable (Prometheus not reachable),
  /// PermissionDenied (401/403), InvalidArgument (a bad selector, with Prometheus' own message), DataLoss
  /// (an answer that is not Prometheus' API).
  [[nodiscard]] virtual auto snapshot() -> core::Result<FleetSnapshot> = 0;
  /// One GPU over the window. Errors: as snapshot(); NotFound when no series matches the key.
  [[nodiscard]] virtual auto history(const GpuKey& key) -> core::Result<GpuHistory> = 0;
  /// The GPUs rolled up by workload over the window. Errors: as snapshot(); Unimplemented for a provider that
  /// has no workload series (this default).
  [[nodiscard]] virtual auto workloads(GroupBy by) -> core::Result<WorkloadRollup> {
    (void)by;
    return core::fail(core::ErrorCode::Unimplemented, "this fleet source has no workload roll-up");
  }
  /// "prometheus at URL, selector S, window 1h" for titles.
  [[nodiscard]] virtual auto describe() const -> std::string = 0;

 protected:
  FleetProvider() = default;
  FleetProvider(const FleetProvider&) = default;
  auto operator=(const FleetProvider&) -> FleetProvider& = default;
};

}  // namespace solscope::fleet
