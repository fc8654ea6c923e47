// Workload attribution: whose work a GPU's figures are. A workload is a Kubernetes pod's container, a Slurm
// job, a container, or a host user's processes; a GPU holds none, one, or several of them in a window. The
// rules that turn a GPU's window into per-workload figures are stated once, here, and in
// docs/design/sol-metrics.md section 11 "Workload attribution":
//   - one workload on the GPU: every figure of the window is that workload's ("exclusive");
//   - several workloads whose per-process SM shares the driver reports (NVML nvmlDeviceGetProcessUtilization,
//     time-slicing): the window's GPU-seconds are split by each workload's share of the summed SM utilization
//     ("shared (time-sliced)");
//   - several workloads without such a split (MPS clients run concurrently; a driver that reports no
//     per-process utilization; shares that sum to 0): the figures stay the GPU's, counted under the identity
//     fields every workload agrees on ("shared (concurrent)"). A split is never invented.
// Pure: identities come from the workload room (procfs, cgroups, the kubelet's PodResources API, Slurm).
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/sol_terms.hpp"

namespace solscope::core {

/// How a GPU is shared among workloads. to_string() names are the `sharing` label values of /metrics and the
/// JSON/trace values.
enum class WorkloadSharing : std::uint8_t {
  kNone,        ///< "none": no workload holds the GPU (no process, no allocation)
  kExclusive,   ///< "exclusive": one workload
  kTimeSliced,  ///< "time_sliced": several workloads, split by their SM shares
  kConcurrent,  ///< "concurrent": several workloads, no split known (MPS, or no per-process utilization)
  kCount
};

[[nodiscard]] auto to_string(WorkloadSharing sharing) -> std::string_view;
/// The sharing named `text` (a to_string() name); nullopt otherwise.
[[nodiscard]] auto parse_workload_sharing(std::string_view text) -> std::optional<WorkloadSharing>;
/// What a view shows: "", "exclusive", "shared (time-sliced)", "shared (concurrent)".
[[nodiscard]] auto sharing_label(WorkloadSharing sharing) -> std::string_view;

/// Where a workload's identity came from, best first. to_string() names: "kubelet", "job_mapping", "slurm",
/// "cgroup", "process", "none".
enum class WorkloadOrigin : std::uint8_t {
  kKubelet,     ///< the kubelet's PodResources API mapped the GPU's device ID to a pod
  kJobMapping,  ///< a dcgm-exporter-style job mapping file named the GPU's job (`--job-mapping-dir`)
  kSlurm,       ///< SLURM_JOB_ID in the process's environment
  kCgroup,      ///< the process's cgroup path (container id, pod UID); no kubelet names
  kProcess,     ///< only the process itself (its user): a host process
  kNone,        ///< nothing could be read (the reason is in GpuWorkloads::note)
  kCount
};

[[nodiscard]] auto to_string(WorkloadOrigin origin) -> std::string_view;
[[nodiscard]] auto parse_workload_origin(std::string_view text) -> std::optional<WorkloadOrigin>;

/// Who a workload is. Every field is empty when unknown. The first four are the label values of /metrics,
/// spelled as dcgm-exporter spells its labels (`pod`, `namespace`, `container`, `hpc_job`).
struct WorkloadIdentity {
  std::string pod;            ///< Kubernetes pod name; "uid:<pod UID>" when only the cgroup path names it
  std::string pod_namespace;  ///< Kubernetes namespace; empty when unknown
  std::string container;      ///< Kubernetes container name; else the runtime's container id (12 hex digits)
  std::string hpc_job;        ///< Slurm job ID (SLURM_JOB_ID or a job mapping file)
  std::string
      user;  ///< SLURM_JOB_USER, else the process owner's name; not a /metrics label (grouping, views)

  friend auto operator==(const WorkloadIdentity&, const WorkloadIdentity&) -> bool = default;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads the 0 of a defaulted <=>
  friend auto operator<=>(const WorkloadIdentity&, const WorkloadIdentity&) = default;

  /// True when no field is known.
  [[nodiscard]] auto empty() const -> bool;
  /// The identity as /metrics labels see it: `user` cleared.
  [[nodiscard]] auto label_fields() const -> WorkloadIdentity;
  /// One line for views: "namespace/pod/container", "job 1234 (alice)", "container 0123456789ab",
  /// "user alice", or "unknown".
  [[nodiscard]] auto display() const -> std::string;
};

/// One workload on one GPU in the latest attribution.
struct WorkloadShare {
  WorkloadIdentity id;
  WorkloadOrigin origin = WorkloadOrigin::kNone;
  std::vector<std::int32_t> pids;  ///< host PIDs, ascending; empty for an allocation with no process
  /// Its processes' summed SM utilization over the last window, percent of the GPU's SM time (NVML process
  /// utilization samples); nullopt when the driver does not report it. 0 for an allocation with no process.
  std::optional<double> sm_pct;
  /// Its share of the GPU's window, 0-1: 1 when exclusive; sm_pct over the sum when time-sliced; nullopt when
  /// no split is known (concurrent).
  std::optional<double> fraction;

  friend auto operator==(const WorkloadShare&, const WorkloadShare&) -> bool = default;
};

/// The workloads of one GPU, as attribute_gpu() found them.
struct GpuWorkloads {
  WorkloadSharing sharing = WorkloadSharing::kNone;
  std::vector<WorkloadShare> workloads;  ///< distinct identities, in order of first appearance
  /// How identities were found and what could not be read, for views and `solscope devices`: e.g.
  /// "kubelet PodResources", "pods from cgroups (no kubelet socket)", "pid 412: environ: permission denied".
  std::string note;

  friend auto operator==(const GpuWorkloads&, const GpuWorkloads&) -> bool = default;

  /// The identity the GPU's own series are labelled with: the single workload's label fields when exclusive;
  /// when shared, the label fields all workloads agree on (a field they differ in is empty); empty when none.
  [[nodiscard]] auto label_identity() const -> WorkloadIdentity;
};

/// One process on a GPU, as the workload room identified it.
struct ProcessWorkload {
  std::int32_t pid = 0;
  WorkloadIdentity id;
  WorkloadOrigin origin = WorkloadOrigin::kNone;
  std::optional<double> sm_pct;  ///< NVML process utilization (SM %) over the last window; nullopt unknown
  bool mps = false;              ///< an MPS client (nvmlDeviceGetMPSComputeRunningProcesses): concurrent
};

/// A workload the GPU is allocated to even with no process on it (a pod's `nvidia.com/gpu`, a mapped job).
struct WorkloadAllocation {
  WorkloadIdentity id;
  WorkloadOrigin origin = WorkloadOrigin::kKubelet;
};

/// Applies the rules of this file's header to one GPU: groups `processes` by identity (first appearance
/// order), adds every allocation no process matched as a workload with no PIDs (sm_pct 0), and sets
/// `sharing` and each `fraction`. `note` is copied. Pure; never fails. A negative or NaN sm_pct counts as
/// unknown.
[[nodiscard]] auto attribute_gpu(std::span<const ProcessWorkload> processes,
                                 std::span<const WorkloadAllocation> allocations, std::string note = {})
    -> GpuWorkloads;

/// The /metrics label names (and JSON keys) of WorkloadIdentity's first four fields, as dcgm-exporter spells
/// its workload labels (NVIDIA/dcgm-exporter internal/pkg/transformation/const.go: podAttribute "pod",
/// namespaceAttribute "namespace", containerAttribute "container", hpcJobAttribute "hpc_job").
inline constexpr std::string_view kPodLabel = "pod";
inline constexpr std::string_view kNamespaceLabel = "namespace";
inline constexpr std::string_view kContainerLabel = "container";
inline constexpr std::string_view kHpcJobLabel = "hpc_job";
/// The counter family of WorkloadCounters on /metrics (docs/http-api.md "Metrics").
inline constexpr std::string_view kPromWorkloadGpuSecondsName = "solscope_workload_gpu_seconds_total";

/// One workload's part of a GPU's window under the rules of this file's header (workload_parts()).
struct WorkloadPart {
  /// Whose part it is. Exclusive and time-sliced: the workload's identity (user included); concurrent: the
  /// fields every workload agrees on (GpuWorkloads::label_identity(), plus `user` when all agree).
  WorkloadIdentity id;
  WorkloadSharing sharing = WorkloadSharing::kExclusive;
  double fraction = 1.0;  ///< its share of the window's seconds (and of what accrues with them), 0-1
};

/// The parts of one window of `gpu`, THE rule WorkloadCounters::add and the report's per-workload totals
/// apply: exclusive: the workload, fraction 1; time-sliced with every fraction known: each workload with its
/// fraction (parts of fraction 0 included); shared otherwise (a fraction missing, or concurrent): one part
/// under the common identity, fraction 1, sharing kConcurrent; none: no part. Pure; never fails.
[[nodiscard]] auto workload_parts(const GpuWorkloads& gpu) -> std::vector<WorkloadPart>;

/// One row of a trace's `workloads` table (schema 5): one workload on one device from t_start_ns until
/// t_end_ns, as the recorder's refresh found it (docs/trace-format.md "workloads").
struct WorkloadInterval {
  std::uint32_t device = 0;     ///< NVML index, as the samples' device
  std::int64_t t_start_ns = 0;  ///< epoch ns on the samples' clock: the device's workloads changed here
  /// When they changed again (or the recording ended); nullopt while open (a recorder killed before it
  /// closed the trace leaves the last rows open: they last until the trace's end).
  std::optional<std::int64_t> t_end_ns;
  WorkloadSharing sharing = WorkloadSharing::kExclusive;  ///< of the device's whole set at t_start_ns
  WorkloadShare share;                                    ///< the workload: identity, origin, pids, shares

  friend auto operator==(const WorkloadInterval&, const WorkloadInterval&) -> bool = default;
};

/// The number of Bound values (arrays indexed by bound class).
inline constexpr std::size_t kBoundCount = 5;

/// One series of `solscope_workload_gpu_seconds_total`: a workload's label fields on one GPU, and how the GPU
/// was shared while it counted.
struct WorkloadSeriesKey {
  WorkloadIdentity labels;  ///< WorkloadIdentity::label_fields(): user is never part of a key
  WorkloadSharing sharing = WorkloadSharing::kExclusive;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads the 0 of a defaulted <=>
  friend auto operator<=>(const WorkloadSeriesKey&, const WorkloadSeriesKey&) = default;
  friend auto operator==(const WorkloadSeriesKey&, const WorkloadSeriesKey&) -> bool = default;
};

/// At most this many workload series per GPU (each with one counter per bound class), so that a node
/// running thousands of short jobs cannot grow /metrics without bound; the GPU-seconds of any further
/// series are counted in WorkloadCounters::dropped_seconds().
inline constexpr std::size_t kMaxWorkloadSeriesPerGpu = 32;

/// GPU-seconds per workload and bound class on one GPU, monotonically non-decreasing, for
/// `solscope_workload_gpu_seconds_total` (rate() of the idle class per namespace is the GPU time allocated
/// but idle). Not thread-safe (LiveState holds it under its lock).
class WorkloadCounters {
 public:
  /// A GPU's workloads as the counters need them: each part's series and its fraction of a sample's seconds
  /// (workload_parts). Made once when the workloads change (parts_of), so that the per-sample add copies no
  /// identity; LiveState keeps it beside the device's workloads.
  using Parts = std::vector<std::pair<WorkloadSeriesKey, double>>;
  [[nodiscard]] static auto parts_of(const GpuWorkloads& gpu) -> Parts;

  /// Adds `seconds` (> 0; others are ignored) of a sample classified `bound` to the workloads of `gpu`:
  /// exclusive: all to the workload; time-sliced: seconds x fraction to each (a workload without a fraction
  /// makes it concurrent); concurrent: all to the series of label_identity(); none: nothing.
  void add(const GpuWorkloads& gpu, Bound bound, double seconds);
  /// The same for the parts_of() a GPU's workloads: the per-sample path.
  void add(const Parts& parts, Bound bound, double seconds);
  /// Every series, in key order.
  [[nodiscard]] auto series() const -> const std::map<WorkloadSeriesKey, std::array<double, kBoundCount>>& {
    return series_;
  }
  /// GPU-seconds that belonged to a series beyond kMaxWorkloadSeriesPerGpu.
  [[nodiscard]] auto dropped_seconds() const -> double { return dropped_seconds_; }

  friend auto operator==(const WorkloadCounters&, const WorkloadCounters&) -> bool = default;

 private:
  void add_to(const WorkloadSeriesKey& key, Bound bound, double seconds);

  std::map<WorkloadSeriesKey, std::array<double, kBoundCount>> series_;
  double dropped_seconds_ = 0.0;
};

}  // namespace solscope::core
