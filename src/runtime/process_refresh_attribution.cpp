// The attribution half of a process refresh (process_refresh.hpp), on the refresher's thread: the node's
// facts (kubelet, job mapping files) and workload::resolve_gpu per listed device.
#include <algorithm>
#include <utility>

#include "runtime/process_refresh.hpp"

namespace solscope::app {
namespace {

/// The kubelet's note when it is not asked.
constexpr std::string_view kKubeletOffNote =
    "kubelet PodResources switched off (SOLSCOPE_KUBELET_SOCKET=off)";

auto listed_of(const std::vector<sources::DeviceProcess>& processes) -> std::vector<workload::ListedProcess> {
  std::vector<workload::ListedProcess> out;
  out.reserve(processes.size());
  for (const auto& p : processes) {
    out.push_back(workload::ListedProcess{
        .pid = p.pid, .gpu_memory_bytes = p.gpu_memory_bytes.value_or(0), .sm_pct = p.sm_pct, .mps = p.mps});
  }
  return out;
}

}  // namespace

auto gather_node_facts(const WorkloadRefreshOptions& options) -> NodeFacts {
  NodeFacts facts;
  facts.node.read_environ = options.read_environ;
  if (options.kubelet_socket.empty()) {
    facts.node.kubelet_note = std::string(kKubeletOffNote);
  } else if (auto pods = workload::list_gpu_pods(options.kubelet_socket)) {
    facts.node.pods = std::move(*pods);
    facts.node.kubelet_note = "kubelet PodResources";
  } else {
    facts.node.kubelet_note = pods.error().message;
  }
  if (options.job_mapping_dir) {
    if (auto jobs = workload::read_job_mapping(*options.job_mapping_dir)) {
      facts.node.jobs_by_gpu = std::move(*jobs);
    } else {
      facts.problems = "job mapping: " + jobs.error().message;
    }
  }
  return facts;
}

auto attribute_listings(std::span<const core::DeviceInfo> devices, std::span<const DeviceListing> listings,
                        const NodeFacts& facts, const WorkloadRefreshOptions& options)
    -> std::vector<ResolvedDevice> {
  std::vector<ResolvedDevice> out;
  out.reserve(listings.size());
  const workload::UserNameLookup user_name = workload::memoized_user_names(options.user_name);
  for (const DeviceListing& listing : listings) {
    const auto info = std::find_if(devices.begin(), devices.end(),
                                   [&](const core::DeviceInfo& d) { return d.index == listing.device; });
    if (info == devices.end()) continue;
    ResolvedDevice resolved{.device = listing.device,
                            .resolved = workload::resolve_gpu(*info, listed_of(listing.processes), facts.node,
                                                              options.procfs_root, user_name)};
    if (!facts.problems.empty()) {
      std::string& note = resolved.resolved.workloads.note;
      note += (note.empty() ? "" : "; ") + facts.problems;
    }
    out.push_back(std::move(resolved));
  }
  return out;
}

auto same_workloads(const core::GpuWorkloads& a, const core::GpuWorkloads& b) -> bool {
  return a.sharing == b.sharing && a.workloads == b.workloads;
}

}  // namespace solscope::app
