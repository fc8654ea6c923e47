#include "workload/discovery.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "workload/detail/engine_state.hpp"
#include "workload/model_config_path.hpp"

namespace solscope::workload {

WorkloadDiscovery::WorkloadDiscovery(net::HttpClient& http, DiscoveryOptions options,
                                     std::vector<WorkloadDeclaration> declared)
    : http_(http), options_(std::move(options)), declared_(std::move(declared)) {}

WorkloadDiscovery::~WorkloadDiscovery() = default;

auto WorkloadDiscovery::engine_for(std::int32_t pid) -> detail::EngineState* {
  detail::Located found = detail::locate_engine(options_.procfs_root, pid);
  if (found.key_pid == 0) return nullptr;
  auto& slot = engines_[found.key_pid];
  // A new engine, or the PID now runs something else. A state already seen this pass is kept: refresh() holds
  // pointers to it.
  if (!slot || (!slot->seen && slot->args != found.args)) {
    slot = std::make_unique<detail::EngineState>();
    slot->pid = found.key_pid;
    slot->args = std::move(found.args);
    slot->launch = std::move(found.launch);
  }
  slot->seen = true;
  return slot.get();
}

auto WorkloadDiscovery::declared_workload(const WorkloadDeclaration& declaration, std::uint32_t gpu_index,
                                          std::vector<ProcessInfo> processes) -> Workload {
  auto cached = declared_configs_.find(declaration.model);
  if (cached == declared_configs_.end()) {
    const ConfigSearch search{.hub_dirs = options_.hub_dirs, .fs_root = {}, .cwd = {}};
    auto config = resolve_model_config(declaration.model, search);
    const auto entry = config ? std::make_pair(config->string(), std::string{})
                              : std::make_pair(std::string{}, config.error().describe());
    cached = declared_configs_.emplace(declaration.model, entry).first;
  }
  Workload w;
  w.gpu_index = gpu_index;
  w.gpus = declaration.gpus;
  w.source = WorkloadSource::Declared;
  w.engine = declaration.engine;
  w.processes = std::move(processes);
  w.model = declaration.model;
  w.config_path = cached->second.first;
  w.config_problem = cached->second.second;
  w.tensor_parallel = declaration.tensor_parallel;
  w.shape = declaration.shape;
  w.status = fmt::format("declared in the config file (line {}): {} on GPUs {}", declaration.line,
                         declaration.model, detail::gpu_list(declaration.gpus));
  return w;
}

auto WorkloadDiscovery::refresh(std::span<const GpuProcesses> gpus, double now_s) -> std::vector<Workload> {
  for (auto& [pid, state] : engines_) state->seen = false;

  std::vector<std::vector<ProcessInfo>> processes(gpus.size());
  std::vector<detail::EngineState*> engine_of(gpus.size(), nullptr);
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    for (const std::int32_t pid : gpus[i].pids) {
      processes[i].push_back(read_process_info(options_.procfs_root, pid, options_.user_name));
    }
    if (find_declaration(declared_, gpus[i].gpu_index) != nullptr) continue;
    for (const std::int32_t pid : gpus[i].pids) {
      if ((engine_of[i] = engine_for(pid)) != nullptr) break;
    }
  }

  // GPUs per engine instance, then one update per engine (each is a key of `groups` once).
  std::map<detail::EngineState*, std::vector<std::uint32_t>> groups;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    if (engine_of[i] != nullptr) groups[engine_of[i]].push_back(gpus[i].gpu_index);
  }
  for (auto& [state, members] : groups) {
    std::sort(members.begin(), members.end());
    members.erase(std::unique(members.begin(), members.end()), members.end());
    if (!state->endpoint_ok &&
        (!state->probed || now_s - state->last_probe_s >= options_.reprobe_interval_s)) {
      detail::probe_engine(http_, options_, *state, now_s);
    }
    detail::resolve_engine_config(options_, *state);
    if (state->endpoint_ok) detail::scrape_engine(http_, *state, now_s);
  }

  std::vector<Workload> out;
  out.reserve(gpus.size());
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const std::uint32_t gpu = gpus[i].gpu_index;
    if (const WorkloadDeclaration* declaration = find_declaration(declared_, gpu)) {
      out.push_back(declared_workload(*declaration, gpu, std::move(processes[i])));
    } else if (engine_of[i] != nullptr) {
      out.push_back(
          detail::engine_workload(*engine_of[i], gpu, groups[engine_of[i]], std::move(processes[i])));
    } else {
      out.push_back(detail::unknown_workload(gpu, std::move(processes[i])));
    }
  }
  std::erase_if(engines_, [](const auto& entry) { return !entry.second->seen; });
  return out;
}

auto discover(std::span<const GpuProcesses> gpus, net::HttpClient& http, const DiscoveryOptions& options,
              std::vector<WorkloadDeclaration> declared) -> std::vector<Workload> {
  WorkloadDiscovery discovery(http, options, std::move(declared));
  return discovery.refresh(gpus, 0.0);
}

}  // namespace solscope::workload
