#include "workload/workload_resolver.hpp"

#include <algorithm>
#include <array>
#include <system_error>
#include <utility>

#include "workload/detail/file_read.hpp"

namespace solscope::workload {
namespace {

using core::WorkloadIdentity;
using core::WorkloadOrigin;

constexpr std::array<std::string_view, 2> kSlurmKeys{kSlurmJobIdKey, kSlurmJobUserKey};

/// What the GPU-level sources say about one device.
struct GpuHolders {
  const std::vector<PodContainer>* pods = nullptr;  ///< the kubelet's holders of the device; null: none known
  std::vector<std::string> jobs;                    ///< job IDs mapped to the device's GPU index
};

auto holders_of(const core::DeviceInfo& device, const NodeAttribution& node) -> GpuHolders {
  GpuHolders out;
  if (node.pods) {
    // The map's keys are normalized device IDs; a MIG instance's `uuid` is its "MIG-..." UUID.
    const auto it = node.pods->by_device.find(device.uuid);
    if (it != node.pods->by_device.end() && !it->second.empty()) out.pods = &it->second;
  }
  if (const auto it = node.jobs_by_gpu.find(device.gpu_number()); it != node.jobs_by_gpu.end())
    out.jobs = it->second;
  return out;
}

auto kubelet_identity(const PodContainer& holder) -> WorkloadIdentity {
  return WorkloadIdentity{
      .pod = holder.pod, .pod_namespace = holder.pod_namespace, .container = holder.container};
}

/// The pod UID ("uid:<uid>") and short container id of a process's cgroup; nullopt when it names neither.
auto cgroup_identity(const ProcessInfo& info) -> std::optional<WorkloadIdentity> {
  if (info.pod_uid.empty() && info.container_id.empty()) return std::nullopt;
  WorkloadIdentity id;
  if (!info.pod_uid.empty()) id.pod = "uid:" + info.pod_uid;
  id.container = info.container_id.substr(0, kShortContainerIdChars);
  return id;
}

struct Identified {
  WorkloadIdentity id;
  WorkloadOrigin origin = WorkloadOrigin::kNone;
};

/// The Slurm job in the process's environment (SLURM_JOB_ID and SLURM_JOB_USER only); nullopt when it has
/// none or the environment cannot be read (then a phrase is added to `problems`). A job that a mapping file
/// also names keeps only its ID, so that it is the same workload as the mapping's allocation.
auto slurm_identity(const std::filesystem::path& procfs_root, const ProcessInfo& info,
                    const GpuHolders& holders, std::vector<std::string>& problems)
    -> std::optional<WorkloadIdentity> {
  auto env = read_environ_keys(procfs_root, info.pid, kSlurmKeys);
  if (!env) {
    problems.push_back("environ: " + std::string(core::to_string(env.error().code)));
    return std::nullopt;
  }
  const auto job = env->find(kSlurmJobIdKey);
  if (job == env->end() || job->second.empty()) return std::nullopt;
  WorkloadIdentity id{.hpc_job = job->second};
  if (std::find(holders.jobs.begin(), holders.jobs.end(), id.hpc_job) != holders.jobs.end()) return id;
  const auto user = env->find(kSlurmJobUserKey);
  id.user = user != env->end() && !user->second.empty() ? user->second : info.user;
  return id;
}

/// One process's identity, best source first (the order of resolve_gpu's docstring).
auto identify(const ProcessInfo& info, const GpuHolders& holders, const NodeAttribution& node,
              const std::filesystem::path& procfs_root, std::vector<std::string>& problems) -> Identified {
  if (holders.pods != nullptr && holders.pods->size() == 1)
    return {kubelet_identity(holders.pods->front()), WorkloadOrigin::kKubelet};
  if (auto id = cgroup_identity(info)) return {std::move(*id), WorkloadOrigin::kCgroup};
  if (holders.jobs.size() == 1)
    return {WorkloadIdentity{.hpc_job = holders.jobs.front()}, WorkloadOrigin::kJobMapping};
  if (node.read_environ) {
    if (auto id = slurm_identity(procfs_root, info, holders, problems))
      return {std::move(*id), WorkloadOrigin::kSlurm};
  }
  if (!info.user.empty()) return {WorkloadIdentity{.user = info.user}, WorkloadOrigin::kProcess};
  return {};
}

/// The workloads the GPU is allocated to whether or not a process runs: the kubelet's holders (all of them
/// only while no process runs when several share it: which process is whose is not known), else the mapped
/// jobs.
auto allocations_of(const GpuHolders& holders, bool any_process) -> std::vector<core::WorkloadAllocation> {
  std::vector<core::WorkloadAllocation> out;
  if (holders.pods != nullptr) {
    if (holders.pods->size() == 1 || !any_process) {
      for (const PodContainer& holder : *holders.pods)
        out.push_back({kubelet_identity(holder), WorkloadOrigin::kKubelet});
    }
    return out;
  }
  for (const std::string& job : holders.jobs)
    out.push_back({WorkloadIdentity{.hpc_job = job}, WorkloadOrigin::kJobMapping});
  return out;
}

/// "a, b, c"
auto join(const std::vector<std::string>& parts, std::string_view separator) -> std::string {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

/// GpuWorkloads::note: where identities came from, then the processes that could not be read (bounded).
auto note_of(const NodeAttribution& node, const GpuHolders& holders, bool any_cgroup, bool any_process,
             const std::vector<std::string>& unreadable) -> std::string {
  std::vector<std::string> parts;
  if (node.pods) {
    if (!node.kubelet_note.empty()) parts.push_back(node.kubelet_note);
    if (holders.pods != nullptr && holders.pods->size() > 1 && any_process) {
      parts.push_back(std::to_string(holders.pods->size()) +
                      " containers share this GPU (time-slicing): processes are named by their cgroups, as "
                      "the kubelet does not say which process is whose");
    }
  } else if (any_cgroup) {
    parts.push_back(node.kubelet_note.empty() ? "pods from cgroups"
                                              : "pods from cgroups (" + node.kubelet_note + ")");
  }
  for (std::size_t i = 0; i < unreadable.size() && i < kMaxNotedProcessProblems; ++i)
    parts.push_back(unreadable[i]);
  if (unreadable.size() > kMaxNotedProcessProblems)
    parts.push_back(std::to_string(unreadable.size() - kMaxNotedProcessProblems) + " more");
  return join(parts, "; ");
}

auto view_row(const ListedProcess& listed, ProcessInfo& info, Identified identified) -> core::GpuProcess {
  std::string command = info.command.empty() && !info.name.empty() ? "[" + info.name + "]" : info.command;
  return core::GpuProcess{.pid = listed.pid,
                          .user = std::move(info.user),
                          .gpu_memory_bytes = listed.gpu_memory_bytes,
                          .command = std::move(command),
                          .container_id = std::move(info.container_id),
                          .workload = std::move(identified.id),
                          .origin = identified.origin,
                          .sm_pct = listed.sm_pct,
                          .mps = listed.mps};
}

}  // namespace

auto resolve_gpu(const core::DeviceInfo& device, const std::vector<ListedProcess>& listed,
                 const NodeAttribution& node, const std::filesystem::path& procfs_root,
                 const UserNameLookup& user_name) -> ResolvedGpu {
  const GpuHolders holders = holders_of(device, node);
  ResolvedGpu out;
  std::vector<core::ProcessWorkload> processes;
  std::vector<std::string> unreadable;
  bool any_cgroup = false;
  for (const ListedProcess& p : listed) {
    ProcessInfo info = read_process_info(procfs_root, p.pid, user_name);
    std::vector<std::string> problems = std::move(info.problems);
    Identified identified = identify(info, holders, node, procfs_root, problems);
    if (!problems.empty()) unreadable.push_back("pid " + std::to_string(p.pid) + ": " + join(problems, ", "));
    any_cgroup = any_cgroup || identified.origin == WorkloadOrigin::kCgroup;
    processes.push_back(core::ProcessWorkload{
        .pid = p.pid, .id = identified.id, .origin = identified.origin, .sm_pct = p.sm_pct, .mps = p.mps});
    out.processes.push_back(view_row(p, info, std::move(identified)));
  }
  const std::vector<core::WorkloadAllocation> allocations = allocations_of(holders, !listed.empty());
  out.workloads = core::attribute_gpu(processes, allocations,
                                      note_of(node, holders, any_cgroup, !listed.empty(), unreadable));
  return out;
}

}  // namespace solscope::workload
