#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "net/prometheus_text.hpp"
#include "workload/detail/engine_state.hpp"
#include "workload/detail/file_read.hpp"
#include "workload/detail/listen_ports.hpp"
#include "workload/model_config_path.hpp"

namespace solscope::workload::detail {
namespace {

namespace fs = std::filesystem;

/// A loopback address and port to try.
struct Candidate {
  std::string host;
  std::uint16_t port = 0;
};

auto pid_dir(const fs::path& procfs_root, std::int32_t pid) -> fs::path {
  return procfs_root / std::to_string(pid);
}

/// The loopback host that reaches an engine bound to `bind` ("" = engine default), or nullopt when the engine
/// binds a specific non-loopback address (then solscope does not probe it).
auto loopback_for(const std::string& bind) -> std::optional<std::string> {
  if (bind.empty() || bind == "0.0.0.0" || bind == "::" || bind == "[::]" || bind == "localhost")
    return "127.0.0.1";
  if (bind == "[::1]") return "::1";
  if (net::is_loopback_host(bind)) return bind;
  return std::nullopt;
}

auto add_candidate(std::vector<Candidate>& out, std::string host, std::uint16_t port) -> void {
  const bool known = std::any_of(out.begin(), out.end(), [&](const Candidate& c) { return c.port == port; });
  if (!known && port != 0) out.push_back({std::move(host), port});
}

auto candidates_for(const DiscoveryOptions& options, const EngineState& state, std::string& problem)
    -> std::vector<Candidate> {
  std::vector<Candidate> out;
  const std::optional<std::string> host = loopback_for(state.launch.host);
  if (!host) {
    problem = std::string(to_string(state.launch.engine)) + " binds " + state.launch.host +
              ", not a loopback address: not probed";
  }
  if (host && state.launch.port) add_candidate(out, *host, *state.launch.port);
  std::vector<std::int32_t> pids{state.pid};
  if (state.launch.entry_point) {
    const std::vector<std::int32_t> children = child_pids(options.procfs_root, state.pid);
    pids.insert(pids.end(), children.begin(), children.end());
  }
  std::vector<ListeningSocket> sockets = listening_sockets(options.procfs_root, pids);
  const std::uint16_t preferred = default_port(state.launch.engine);
  std::stable_partition(sockets.begin(), sockets.end(),
                        [preferred](const ListeningSocket& s) { return s.port == preferred; });
  bool listens_on_loopback = false;
  for (const ListeningSocket& socket : sockets) {
    if (!socket.reachable_on_loopback) continue;
    listens_on_loopback = true;
    // An IPv6 wildcard or ::1 socket always accepts ::1; an IPv4-mapped one accepts 127.0.0.1.
    const bool mapped = socket.address.rfind("::ffff:", 0) == 0;
    add_candidate(out,
                  !socket.ipv6 ? loopback_for(socket.address).value_or("127.0.0.1")
                  : mapped     ? "127.0.0.1"
                               : "::1",
                  socket.port);
  }
  // The default port is a guess, made only for an entry point whose own sockets are not visible (another
  // user's process): guessing beside visible sockets could reach another engine instance and report its
  // model.
  if (host && !state.launch.port && state.launch.entry_point && !listens_on_loopback) {
    add_candidate(out, *host, preferred);
  }
  if (out.size() > options.max_probe_ports) out.resize(options.max_probe_ports);
  return out;
}

/// `model` without trailing slashes, so that "/models/x/" and "/models/x" compare equal.
auto normalized(std::string_view model) -> std::string_view {
  while (model.size() > 1 && model.back() == '/') model.remove_suffix(1);
  return model;
}

/// An endpoint that reports another model than the command line names belongs to another engine (a host port
/// that shadows a container's, or a guessed default port): an error naming both models, else ok.
auto check_same_model(const EngineLaunch& launch, const EndpointInfo& info, std::uint16_t port)
    -> core::Result<void> {
  if (launch.model.empty() || info.model.empty() || normalized(launch.model) == normalized(info.model)) {
    return core::ok();
  }
  // fmt::format, not ":" + std::to_string(...): g++ 12 -O3 flags that with a false -Wrestrict (GCC bug
  // 105329).
  return core::fail(
      core::ErrorCode::FailedPrecondition,
      fmt::format(":{} serves {}, not {} named on the command line: another engine holds that port", port,
                  info.model, launch.model));
}

auto same_network_namespace(const fs::path& procfs_root, std::int32_t pid) -> bool {
  auto theirs = read_link(pid_dir(procfs_root, pid) / "ns" / "net");
  auto ours = read_link(procfs_root / "self" / "ns" / "net");
  return !theirs || !ours || *theirs == *ours;
}

}  // namespace

auto locate_engine(const fs::path& procfs_root, std::int32_t pid) -> Located {
  Located nearest;
  std::int32_t current = pid;
  for (int depth = 0; depth <= kMaxChainDepth && current > 1; ++depth) {
    const fs::path dir = pid_dir(procfs_root, current);
    auto cmdline = read_file(dir / "cmdline");
    std::vector<std::string> args = cmdline ? split_nul(*cmdline) : std::vector<std::string>{};
    EngineLaunch launch = detect_engine(args);
    if (launch.engine == EngineKind::Tgi && launch.entry_point) {
      launch = detect_engine(args, read_environ(procfs_root, current));
    }
    if (launch.entry_point) return {current, std::move(args), std::move(launch)};
    if (launch.engine != EngineKind::None && nearest.key_pid == 0)
      nearest = {current, std::move(args), launch};
    auto status = read_file(dir / "status");
    if (!status) break;
    current = parse_status(*status).parent_pid;
  }
  return nearest;
}

void probe_engine(net::HttpClient& http, const DiscoveryOptions& options, EngineState& state, double now_s) {
  state.probed = true;
  state.last_probe_s = now_s;
  std::string problem;
  const std::vector<Candidate> candidates = candidates_for(options, state, problem);
  for (const Candidate& candidate : candidates) {
    auto info = probe_endpoint(http, state.launch.engine, candidate.host, candidate.port);
    if (info) {
      if (auto same = check_same_model(state.launch, *info, candidate.port); !same) {
        if (problem.empty()) problem = same.error().describe();
        continue;
      }
      state.endpoint_ok = true;
      state.endpoint = std::move(*info);
      state.host = candidate.host;
      state.port = candidate.port;
      state.probe_problem.clear();
      return;
    }
    if (problem.empty()) problem = info.error().describe();
  }
  state.endpoint_ok = false;
  if (!candidates.empty() && state.port == 0) {
    state.host = candidates.front().host;
    state.port = candidates.front().port;
  }
  if (problem.empty()) problem = "no port to probe";
  if (!same_network_namespace(options.procfs_root, state.pid)) {
    problem +=
        " (the engine runs in another network namespace: publish its port on the host, or declare the "
        "workload in the config file)";
  }
  state.probe_problem = std::move(problem);
}

void resolve_engine_config(const DiscoveryOptions& options, EngineState& state) {
  const std::string& model = state.endpoint_ok ? state.endpoint.model : state.launch.model;
  if (state.resolved_for && *state.resolved_for == model) return;
  state.resolved_for = model;
  state.config_path.clear();
  state.config_problem.clear();
  const fs::path dir = pid_dir(options.procfs_root, state.pid);
  const std::vector<std::string> environ = read_environ(options.procfs_root, state.pid);
  ConfigSearch search;
  search.fs_root = detail::is_directory(dir / "root") ? dir / "root" : fs::path{};
  search.cwd = detail::is_directory(dir / "cwd") ? dir / "cwd" : fs::path{};
  search.hub_dirs = hf_hub_dirs([&environ](std::string_view name) { return env_value(environ, name); });
  for (const fs::path& own : options.hub_dirs) {
    if (std::find(search.hub_dirs.begin(), search.hub_dirs.end(), own) == search.hub_dirs.end()) {
      search.hub_dirs.push_back(own);
    }
  }
  auto config = resolve_model_config(model, search);
  if (config) {
    state.config_path = config->string();
  } else {
    state.config_problem = config.error().describe();
  }
}

void scrape_engine(net::HttpClient& http, EngineState& state, double now_s) {
  auto text = fetch_metrics(http, state.launch.engine, state.host, state.port);
  if (!text) {
    state.metrics_problem = text.error().describe();
    state.live = LiveShape{};
    state.previous.reset();
    return;
  }
  const net::PromText parsed = net::parse_prometheus_text(*text, metric_names(state.launch.engine));
  const EngineCounters counters = read_engine_counters(state.launch.engine, parsed.samples, now_s);
  state.live = compute_live_shape(counters, state.previous ? &*state.previous : nullptr);
  state.previous = counters;
  state.metrics_problem.clear();
}

}  // namespace solscope::workload::detail
