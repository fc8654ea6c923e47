// Processes and workloads on the GPUs: every 2 s the refresher asks the engine thread (sources are not
// thread-safe) for each GPU's process list from the source's ProcessLister capability (NVML's compute,
// graphics and MPS lists with each process's SM share), and nothing else; everything else runs on the
// refresher's own thread: the kubelet's PodResources map, the job mapping files, procfs (user, command,
// cgroup, the Slurm keys of environ) and core::attribute_gpu (workload::resolve_gpu). The rows and workloads
// go to the LiveState. Also refreshes each GPU's workload note from the attainable-SOL model when there is
// one.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "core/guarded_run.hpp"
#include "core/live_state.hpp"
#include "runtime/live_feed.hpp"
#include "sources/counter_source.hpp"
#include "workload/pod_resources.hpp"
#include "workload/process_info.hpp"
#include "workload/workload_resolver.hpp"

namespace solscope::app {

/// How the process and workload refresh runs (issue 24; docs/design/sol-metrics.md section 11).
struct WorkloadRefreshOptions {
  std::chrono::milliseconds period{2000};       ///< how often; > 0
  std::filesystem::path procfs_root = "/proc";  ///< a fake tree in tests
  /// The kubelet's PodResources socket; empty: not asked (switched off by SOLSCOPE_KUBELET_SOCKET=off).
  std::string kubelet_socket = std::string(workload::kKubeletPodResourcesSocket);
  std::optional<std::filesystem::path> job_mapping_dir;  ///< `--job-mapping-dir`; nullopt: none
  bool read_environ = true;  ///< false (SOLSCOPE_READ_ENVIRON=0): never read /proc/PID/environ
  /// Called on the refresher's thread when a device's workloads changed, with the sample clock's newest time
  /// (LiveState::newest_ns()): the trace writer's `workloads` table. May be empty.
  std::function<void(std::uint32_t device, std::int64_t t_ns, const core::GpuWorkloads& workloads)> on_change;
  /// Owner names of uids (a fixed table in tests); called on the refresher's thread only.
  workload::UserNameLookup user_name = workload::system_user_name;
};

/// One device's processes as the engine thread hands them over (sources::ProcessLister::processes_on).
struct DeviceListing {
  std::uint32_t device = 0;
  std::vector<sources::DeviceProcess> processes;
};

/// The node's facts for one refresh, gathered on the refresher's thread.
struct NodeFacts {
  workload::NodeAttribution node;
  std::string problems;  ///< "job mapping: <why>" when --job-mapping-dir could not be read; else empty
};

/// Gathers NodeFacts: the kubelet's PodResources map through workload::list_gpu_pods on
/// `options.kubelet_socket` (not asked when empty; its error message becomes `node.kubelet_note`), the job
/// mapping files of `options.job_mapping_dir` (workload::read_job_mapping) and the environ switch. Blocks
/// for at most workload::kPodResourcesDeadline. Never fails.
[[nodiscard]] auto gather_node_facts(const WorkloadRefreshOptions& options) -> NodeFacts;

/// One device's resolved processes and workloads.
struct ResolvedDevice {
  std::uint32_t device = 0;
  workload::ResolvedGpu resolved;
};

/// The attribution half of a refresh: workload::resolve_gpu for every listing whose device is in `devices`
/// (others are skipped), reading `options.procfs_root` with `options.user_name`; `facts.problems` is added to
/// each GPU's workloads.note. Pure but for procfs reads; never fails.
[[nodiscard]] auto attribute_listings(std::span<const core::DeviceInfo> devices,
                                      std::span<const DeviceListing> listings, const NodeFacts& facts,
                                      const WorkloadRefreshOptions& options) -> std::vector<ResolvedDevice>;

/// True when two attributions name the same workloads with the same sharing, shares and PIDs (the note,
/// which says how they were found, is not compared): ProcessRefresher calls on_change when this is false.
[[nodiscard]] auto same_workloads(const core::GpuWorkloads& a, const core::GpuWorkloads& b) -> bool;

/// Refreshes the processes and workloads of every device in `state` every `options.period` until destroyed
/// (only when the engine's source offers CounterSource::process_lister(); otherwise nothing), and workload
/// notes from `notes` (may be empty: none). Only the process lists are taken on the engine thread (a job
/// posted to it, answered through a mailbox); a device whose list the source refuses keeps its last rows.
/// The refresher's thread and the posted job run under core::guarded_run: an exception stops the refreshes
/// (sampling goes on) and status() says why.
class ProcessRefresher {
 public:
  ProcessRefresher(BackgroundEngine& engine, core::LiveState& state,
                   std::function<std::string(std::uint32_t device)> notes,
                   WorkloadRefreshOptions options = {});
  /// As above with default options but the period.
  ProcessRefresher(BackgroundEngine& engine, core::LiveState& state,
                   std::function<std::string(std::uint32_t device)> notes, std::chrono::milliseconds period);
  ~ProcessRefresher();  ///< stops and joins its thread (within the kubelet call's deadline)
  ProcessRefresher(const ProcessRefresher&) = delete;
  auto operator=(const ProcessRefresher&) -> ProcessRefresher& = delete;

  /// "" while refreshing; "process refresh stopped: <what>" once an exception stopped it. Thread-safe.
  [[nodiscard]] auto status() const -> std::string { return fault_->text(); }

 private:
  /// The state shared with the jobs posted to the engine, which may run after this object is gone: the stop
  /// flag, the wake-up and the listing answer.
  struct Mailbox;

  void run();
  /// Posts the listing job for `round` and waits (up to one period) for its answer; nullopt when none came
  /// (stopped, the engine ended, or the source lists no processes).
  auto list_on_engine(std::uint64_t round) -> std::optional<std::vector<DeviceListing>>;
  void publish(const std::vector<DeviceListing>& listings);

  BackgroundEngine& engine_;
  core::LiveState& state_;
  std::function<std::string(std::uint32_t)> notes_;
  WorkloadRefreshOptions options_;
  std::map<std::uint32_t, core::GpuWorkloads> last_;  ///< each device's workloads of the last refresh
  std::shared_ptr<Mailbox> mailbox_;
  std::shared_ptr<core::ThreadFault> fault_ = std::make_shared<core::ThreadFault>();
  std::thread thread_;
};

}  // namespace solscope::app
