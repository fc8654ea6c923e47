// Workload discovery: GPU -> processes -> serving engine -> endpoint -> model config.json -> live shape, per
// GPU, refreshed every few seconds. The result feeds the ceiling model (model config, tensor parallelism and
// step shape) and `solscope devices --workloads`.
//
// Chain per GPU (the PIDs come from NVML, which the caller queries):
//  1. attribute each PID (process_info.hpp);
//  2. walk each PID's parent chain (at most kMaxChainDepth steps) to the engine's entry point, e.g. a
//     `VLLM::Worker_TP0` -> `VLLM::EngineCore` -> `vllm serve MODEL -tp 2` (engine_cmdline.hpp); GPUs whose
//     processes lead to one entry point form one workload;
//  3. probe its HTTP endpoint on loopback: the port of the command line, then the ports the engine's
//  processes
//     listen on, then the engine's default port (endpoint.hpp, listen_ports.hpp);
//  4. find config.json from the model the endpoint reports, else the command line's (model_config_path.hpp);
//  5. scrape /metrics and turn counter deltas since the previous refresh into the live shape
//  (live_shape.hpp).
// Steps 2-4 are cached per engine (keyed by the entry point's PID and command line, so a reused PID is
// noticed); a failed probe is retried after `reprobe_interval_s`. A GPU named in a `[[workload]]` declaration
// takes the declared workload instead of discovery. Nothing but 127.0.0.1 and ::1 is contacted.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "net/http_client.hpp"
#include "workload/declaration.hpp"
#include "workload/detail/endpoint.hpp"
#include "workload/detail/engine_cmdline.hpp"
#include "workload/detail/live_shape.hpp"
#include "workload/process_info.hpp"

namespace solscope::workload {

namespace detail {
struct EngineState;
}  // namespace detail

/// Parent-chain steps walked from a GPU process to its engine's entry point (vLLM needs 2: worker, engine
/// core).
inline constexpr int kMaxChainDepth = 8;

/// The processes NVML reports on one GPU.
struct GpuProcesses {
  std::uint32_t gpu_index = 0;     ///< NVML index
  std::vector<std::int32_t> pids;  ///< compute (and graphics) processes holding a context on it
};

/// Where a workload description came from.
enum class WorkloadSource : std::uint8_t {
  None,        ///< nothing known: no process, or no engine recognised
  Discovered,  ///< a serving engine was found (its endpoint may still have failed: see status)
  Declared,    ///< a `[[workload]]` entry of the config file
};

/// What runs on one GPU. Unknown numbers are 0 (NaN in `live`), unknown strings empty.
struct Workload {
  std::uint32_t gpu_index = 0;
  std::vector<std::uint32_t> gpus;  ///< every GPU of the same engine instance or declaration, sorted
  WorkloadSource source = WorkloadSource::None;
  EngineKind engine = EngineKind::None;
  std::vector<ProcessInfo> processes;  ///< the GPU's processes, in the order NVML gave them
  std::int32_t engine_pid = 0;         ///< the engine's entry point (API server, launcher); 0 when not found
  std::string host;                    ///< loopback address probed, e.g. "127.0.0.1"
  std::uint16_t port = 0;              ///< HTTP port (probed, or the one that answered)
  bool endpoint_ok = false;            ///< the model-info request answered
  std::string served_name;             ///< name clients use (vLLM `id`)
  std::string model;                   ///< local path or Hugging Face id
  std::string config_path;             ///< config.json found for `model`; empty when not
  std::string config_problem;          ///< why config_path is empty (message and hint)
  /// GPUs per attention rank (the ceiling's TP), 1-1024; 0 when unknown. Equals the engine's TP unless
  /// attention runs data-parallel (engine_layout.hpp).
  int tensor_parallel = 0;
  int expert_parallel = 1;    ///< EP degree of the MoE layers, 1-1024 (1: none)
  int attention_dp = 1;       ///< attention data-parallel ranks, 1-1024 (1: none)
  int pipeline_parallel = 1;  ///< pipeline stages, 1-1024
  int fallback_tensor_parallel =
      0;                           ///< TP to model when the model cannot take the layout (engine_layout.hpp)
  std::string layout_note;         ///< how an engine setting was approximated; empty when read as is
  std::int64_t max_model_len = 0;  ///< tokens
  LiveShape live;                  ///< from the engine's /metrics (NaN when not scraped)
  std::string metrics_problem;     ///< why `live` is unknown, when /metrics failed
  std::optional<WorkloadShape>
      shape;  ///< declared, or suggested by the live traffic; nullopt when idle/unknown
  /// The live serving traffic (isl, osl, concurrency) from the engine's request histograms; when set, the
  /// ceiling is the serving mix's (docs/design/ceiling-model.md 6.5) rather than `shape`'s single step.
  std::optional<ServeShape> serve;
  std::int64_t max_batched_tokens = 0;  ///< token budget per step from the command line; 0 = engine default
  std::string status;  ///< one line: "found vLLM serving meta-llama/Llama-3.1-8B on :8000", or why not
};

/// Settings of discovery; every path and lookup can be replaced in tests.
struct DiscoveryOptions {
  std::filesystem::path procfs_root = "/proc";
  std::vector<std::filesystem::path>
      hub_dirs;  ///< solscope's own HF hub dirs (hf_hub_dirs() of its environment, from the app)
  UserNameLookup user_name = system_user_name;
  double reprobe_interval_s = 30.0;  ///< wait before probing an endpoint that failed again, seconds
  std::size_t max_probe_ports = 4;   ///< ports tried per engine and probe
};

/// Discovery with caches and counter history between refreshes. Not thread-safe: call refresh() from one
/// thread (the HTTP client is used synchronously, with its own timeouts).
class WorkloadDiscovery {
 public:
  /// `http` must outlive the object. `declared` entries take precedence over discovery on their GPUs.
  WorkloadDiscovery(net::HttpClient& http, DiscoveryOptions options,
                    std::vector<WorkloadDeclaration> declared = {});
  ~WorkloadDiscovery();
  WorkloadDiscovery(const WorkloadDiscovery&) = delete;
  auto operator=(const WorkloadDiscovery&) -> WorkloadDiscovery& = delete;

  /// One pass over `gpus` at time `now_s` (seconds on a monotonic clock; rates use the difference between
  /// passes). Returns one Workload per entry of `gpus`, in the same order. Never fails: problems go to
  /// `status`.
  [[nodiscard]] auto refresh(std::span<const GpuProcesses> gpus, double now_s) -> std::vector<Workload>;

 private:
  [[nodiscard]] auto engine_for(std::int32_t pid) -> detail::EngineState*;
  [[nodiscard]] auto declared_workload(const WorkloadDeclaration& declaration, std::uint32_t gpu_index,
                                       std::vector<ProcessInfo> processes) -> Workload;

  net::HttpClient& http_;
  DiscoveryOptions options_;
  std::vector<WorkloadDeclaration> declared_;
  std::map<std::string, std::pair<std::string, std::string>> declared_configs_;  ///< model -> (path, problem)
  std::map<std::int32_t, std::unique_ptr<detail::EngineState>> engines_;  ///< by entry-point (or worker) PID
};

/// One pass without history (rates stay NaN): a fresh WorkloadDiscovery's refresh(gpus, 0).
[[nodiscard]] auto discover(std::span<const GpuProcesses> gpus, net::HttpClient& http,
                            const DiscoveryOptions& options, std::vector<WorkloadDeclaration> declared = {})
    -> std::vector<Workload>;

/// Text for `solscope devices --workloads`: per GPU a "GPU <n>: <status>" line, then indented lines for the
/// processes, engine, config.json, live shape and suggested step. Ends with a newline; empty input gives
/// "no GPUs\n".
[[nodiscard]] auto format_workloads(std::span<const Workload> workloads) -> std::string;

}  // namespace solscope::workload
