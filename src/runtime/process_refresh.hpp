// Processes on the GPUs for the terminal view: every 2 s, on the engine thread (sources are not thread-safe),
// the processes of each GPU from the source's ProcessLister capability (NVML's compute processes), attributed
// from /proc (user, command, container), put in the LiveState. Also refreshes each GPU's workload note from
// the attainable-SOL model when there is one.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/guarded_run.hpp"
#include "core/live_state.hpp"
#include "runtime/live_feed.hpp"
#include "workload/pod_resources.hpp"
#include "workload/process_info.hpp"

namespace solscope::app {

/// One NVML process entry: pid and GPU memory in bytes (0 when unknown).
struct PidMemory {
  std::int32_t pid = 0;
  std::uint64_t gpu_memory_bytes = 0;
};

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
};

/// The view's process rows for NVML entries, attributed from `<procfs_root>/<pid>/` (read_process_info):
/// user, command line (the kernel's name in brackets when the command line is unreadable), container id.
/// Never fails: unreadable fields stay empty.
[[nodiscard]] auto attribute_processes(const std::vector<PidMemory>& entries,
                                       const std::filesystem::path& procfs_root,
                                       const workload::UserNameLookup& user_name)
    -> std::vector<core::GpuProcess>;

/// Posts a refresh to `engine` every `period` until destroyed: processes of every device in `state` (only
/// when the engine's source offers CounterSource::process_lister(); otherwise nothing), and workload notes
/// from `notes` (may be empty: none). Its thread and the posted refresh run under core::guarded_run: an
/// exception stops the refreshes (sampling goes on) and status() says why.
class ProcessRefresher {
 public:
  ProcessRefresher(BackgroundEngine& engine, core::LiveState& state,
                   std::function<std::string(std::uint32_t device)> notes,
                   std::chrono::milliseconds period = std::chrono::milliseconds(2000));
  ~ProcessRefresher();  ///< stops and joins its thread
  ProcessRefresher(const ProcessRefresher&) = delete;
  auto operator=(const ProcessRefresher&) -> ProcessRefresher& = delete;

  /// "" while refreshing; "process refresh stopped: <what>" once an exception stopped it. Thread-safe.
  [[nodiscard]] auto status() const -> std::string { return fault_->text(); }

 private:
  void run();

  BackgroundEngine& engine_;
  core::LiveState& state_;
  std::function<std::string(std::uint32_t)> notes_;
  std::chrono::milliseconds period_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  /// Shared with the refreshes posted to the engine, which may run after this object is gone.
  std::shared_ptr<core::ThreadFault> fault_ = std::make_shared<core::ThreadFault>();
  std::thread thread_;
};

}  // namespace solscope::app
