// Discovery internals: what is cached per serving engine between refreshes, and the steps that fill it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "workload/discovery.hpp"

namespace solscope::workload::detail {

/// An engine found from a GPU process: its entry point, or (when none is visible) the nearest process that
/// looks like part of an engine. key_pid 0: no engine.
struct Located {
  std::int32_t key_pid = 0;
  std::vector<std::string> args;
  EngineLaunch launch;
};

/// Walks from `pid` up its parent chain (at most kMaxChainDepth steps, stopping below PID 2) to the first
/// engine entry point; TGI launchers are re-read with their environment.
[[nodiscard]] auto locate_engine(const std::filesystem::path& procfs_root, std::int32_t pid) -> Located;

/// The cached state of one engine instance.
struct EngineState {
  std::int32_t pid = 0;           ///< entry point, or the engine process found
  std::vector<std::string> args;  ///< its command line, to notice PID reuse
  EngineLaunch launch;
  bool seen = false;  ///< found during the current pass

  bool probed = false;
  double last_probe_s = -std::numeric_limits<double>::infinity();
  std::string host;
  std::uint16_t port = 0;
  bool endpoint_ok = false;
  EndpointInfo endpoint;
  std::string probe_problem;  ///< why the endpoint is unknown

  std::optional<std::string> resolved_for;  ///< model that config_path/config_problem were resolved for
  std::string config_path;
  std::string config_problem;

  std::optional<EngineCounters> previous;
  LiveShape live;
  std::string metrics_problem;
};

/// Probes the engine's endpoint and records the outcome in `state`. Ports, at most options.max_probe_ports:
/// the command line's, then the loopback-reachable listening sockets of the engine process and (for an entry
/// point) its children, the engine's default port first; the default port itself only when none of those is
/// visible.
void probe_engine(net::HttpClient& http, const DiscoveryOptions& options, EngineState& state, double now_s);

/// Resolves config.json for the model the endpoint reports (else the command line's), looking in the engine's
/// filesystem (/proc/<pid>/root, /proc/<pid>/cwd, its HF_HOME) and in solscope's hub dirs. Cached per model.
void resolve_engine_config(const DiscoveryOptions& options, EngineState& state);

/// Scrapes /metrics and updates `live` from the counter deltas since the previous scrape.
void scrape_engine(net::HttpClient& http, EngineState& state, double now_s);

/// The workload of one GPU served by `state`.
[[nodiscard]] auto engine_workload(const EngineState& state, std::uint32_t gpu_index,
                                   std::vector<std::uint32_t> gpus, std::vector<ProcessInfo> processes)
    -> Workload;

/// The workload of a GPU without a recognised engine (no process, or another program): status says which.
[[nodiscard]] auto unknown_workload(std::uint32_t gpu_index, std::vector<ProcessInfo> processes) -> Workload;

/// Comma-separated GPU indices, e.g. "0,1".
[[nodiscard]] auto gpu_list(std::span<const std::uint32_t> gpus) -> std::string;

}  // namespace solscope::workload::detail
