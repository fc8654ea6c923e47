// Workload identity per GPU: joins what NVML lists on each GPU (processes with their SM share) with what the
// node knows about them (procfs and cgroups: container and pod UID; the environment: the Slurm job only; the
// kubelet's PodResources map; dcgm-exporter-style job mapping files) and applies core::attribute_gpu. The
// rules are core/workload.hpp's; the sources of each field are in docs/design/sol-metrics.md section 11.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/device_info.hpp"
#include "core/live_state.hpp"
#include "core/workload.hpp"
#include "workload/pod_resources.hpp"
#include "workload/process_info.hpp"

namespace solscope::workload {

/// The environment keys an attribution reads from /proc/PID/environ; no other key is kept.
inline constexpr std::string_view kSlurmJobIdKey = "SLURM_JOB_ID";
inline constexpr std::string_view kSlurmJobUserKey = "SLURM_JOB_USER";

/// A container named by its runtime id only (no kubelet name) is labelled with this many leading hex digits
/// of it, as `docker ps` and `crictl ps` abbreviate ids.
inline constexpr std::size_t kShortContainerIdChars = 12;
/// GpuWorkloads::note names at most this many processes that could not be read, then "N more".
inline constexpr std::size_t kMaxNotedProcessProblems = 3;
/// A job mapping file larger than this (64 KiB, thousands of job IDs) is refused as not one.
inline constexpr std::size_t kMaxJobMappingFileBytes = 64u << 10;
/// A job mapping file with more job IDs than this is refused (a GPU runs a handful of jobs at once).
inline constexpr std::size_t kMaxJobsPerMappingFile = 64;

/// One process NVML lists on a GPU (sources::DeviceProcess without the source room's type).
struct ListedProcess {
  std::int32_t pid = 0;
  std::uint64_t gpu_memory_bytes = 0;  ///< 0 when unknown
  std::optional<double> sm_pct;        ///< NVML process utilization, SM %; nullopt unknown
  bool mps = false;                    ///< an MPS client
};

/// What the node knows besides procfs, gathered once per refresh.
struct NodeAttribution {
  /// The kubelet's map; nullopt when not asked (switched off) or unavailable (`kubelet_note` says which).
  std::optional<PodResourcesMap> pods;
  std::string kubelet_note;  ///< "kubelet PodResources" or why not, e.g. "no kubelet socket at ..."
  /// Job IDs per GPU index from `--job-mapping-dir` files; empty when not configured or unreadable.
  std::map<std::uint32_t, std::vector<std::string>> jobs_by_gpu;
  bool read_environ =
      true;  ///< false: never read /proc/PID/environ (the switch in the runtime's environment)
};

/// The processes and workloads of one GPU.
struct ResolvedGpu {
  std::vector<core::GpuProcess> processes;  ///< view rows, one per listed process, identity filled in
  core::GpuWorkloads workloads;             ///< core::attribute_gpu over them and the GPU's allocations
};

/// Attributes the processes NVML listed on `device`. Identity, best first: the kubelet's pod for the device's
/// ID (its MIG UUID for a MIG device, else its UUID) when exactly one container holds it, else the process's
/// cgroup pod UID as pod "uid:<uid>" and container id; the job mapping file's job for the GPU; SLURM_JOB_ID
/// and SLURM_JOB_USER from the process's environment; the process owner's name. Allocations with no process
/// become workloads with no PIDs. Never fails: what cannot be read stays unknown and is named in
/// `workloads.note` ("pid 412: environ: permission denied").
/// Details: a kubelet holder is the identity of every process on the device, read or not; when several
/// containers hold it (time-slicing replicas) the kubelet does not say which process is whose, so processes
/// are named by their cgroups and the holders are allocations only while no process runs (the note says so).
/// A cgroup names pod "uid:<pod UID>" and container kShortContainerIdChars hex digits of the container id.
/// Mapped jobs are allocations when no kubelet holder is known; a SLURM_JOB_ID that a mapping file also names
/// keeps only the job (the mapping's workload), another also SLURM_JOB_USER (else the owner). environ is
/// opened only when `node.read_environ` and no better source named the process; only the two Slurm keys are
/// kept (read_environ_keys).
[[nodiscard]] auto resolve_gpu(const core::DeviceInfo& device, const std::vector<ListedProcess>& listed,
                               const NodeAttribution& node, const std::filesystem::path& procfs_root,
                               const UserNameLookup& user_name) -> ResolvedGpu;

/// Reads dcgm-exporter-style job mapping files: in `dir`, a file named after a GPU index ("0", "1", ...)
/// holds one job ID per line (blank lines ignored). Files of other names are ignored. Errors: NotFound or
/// PermissionDenied for the directory, with its path.
/// Format: dcgm-exporter's HPC job mapping (`--hpc-job-mapping-dir`, internal/pkg/transformation/hpc.go):
/// regular files whose name is a GPU index, each line a job ID; directories and other names are skipped. Here
/// a name must be the index written canonically ("7", not "07" or "+7": dcgm-exporter matches the name
/// against its `gpu` label as a string), lines are trimmed, and a job listed twice counts once. A file that
/// vanished since the listing (the job's epilog removed it) is skipped. Further errors, each naming the file:
/// PermissionDenied (a file that cannot be read), InvalidArgument (a file over kMaxJobMappingFileBytes or
/// with more than kMaxJobsPerMappingFile job IDs).
[[nodiscard]] auto read_job_mapping(const std::filesystem::path& dir)
    -> core::Result<std::map<std::uint32_t, std::vector<std::string>>>;

}  // namespace solscope::workload
