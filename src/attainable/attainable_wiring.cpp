#include "attainable/attainable_wiring.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>
#include <system_error>
#include <utility>

#include "net/http_client.hpp"
#include "runtime/engine_loop.hpp"
#include "runtime/environment.hpp"
#include "runtime/messages.hpp"
#include "runtime/signals.hpp"
#include "runtime/source_factory.hpp"
#include "runtime/text_file.hpp"

namespace solscope::app {

auto workloads_file_path(const WorkloadOptions& options, const workload::EnvLookup& env) -> std::string {
  if (!options.file.empty()) return options.file;
  const std::filesystem::path dir = config::config_dir(env);
  if (dir.empty()) return {};
  const std::filesystem::path file = dir / kWorkloadsFileName;
  std::error_code ec;
  return std::filesystem::is_regular_file(file, ec) ? file.string() : std::string();
}

auto load_workload_declarations(const WorkloadOptions& options, const workload::EnvLookup& env)
    -> core::Result<std::vector<workload::WorkloadDeclaration>> {
  if (options.disabled) return std::vector<workload::WorkloadDeclaration>{};
  const std::string path = workloads_file_path(options, env);
  if (path.empty()) return std::vector<workload::WorkloadDeclaration>{};
  constexpr const char* kHint =
      "pass a TOML file with [[workload]] entries to --workloads (or SOLSCOPE_WORKLOADS), or --no-workloads";
  auto text = read_text_file(path, "workload declarations", kHint);
  if (!text) return core::propagate(text);
  return workload::parse_workload_declarations(*text, path);
}

auto make_live_attainable(std::vector<core::DeviceInfo> devices,
                          std::vector<workload::WorkloadDeclaration> declared)
    -> std::unique_ptr<AttainableSol> {
  AttainableSolDeps deps;
  deps.pids = make_nvml_pid_lister();
  deps.http = net::make_loopback_http_client({.stop = {&stop_flag()}});  // a stop cancels a probe in flight
  deps.discovery.procfs_root = "/proc";
  deps.discovery.hub_dirs = workload::hf_hub_dirs(config::process_environment());
  deps.declared = std::move(declared);
  return std::make_unique<AttainableSol>(std::move(devices), std::move(deps));
}

auto format_devices_workloads(const AttainableSnapshot& snapshot) -> std::string {
  std::string text = "\nWorkloads (discovered on this machine; nothing leaves it)\n";
  if (snapshot.workloads.empty()) return text + workload::format_workloads({});
  for (std::size_t i = 0; i < snapshot.workloads.size(); ++i) {
    text += workload::format_workloads(std::span(&snapshot.workloads[i], 1));
    if (i < snapshot.devices.size() && !snapshot.devices[i].ceiling_note.empty()) {
      text += "  ceiling: " + snapshot.devices[i].ceiling_note + "\n";
    }
  }
  return text;
}

auto plan_attainable(const CommonOptions& common, const WorkloadOptions& workloads)
    -> core::Result<AttainablePlan> {
  AttainablePlan plan;
  // Workload discovery reads this machine's processes: not those behind a (possibly remote) dcgm-exporter.
  plan.wanted = common.replay.empty() && common.dcgm_exporter.empty() && !workloads.disabled;
  if (!plan.wanted) return plan;
  auto declared = load_workload_declarations(workloads, config::process_environment());
  if (!declared) return core::propagate(declared);
  plan.declared = std::move(*declared);
  return plan;
}

auto plan_sampling(const CommonOptions& common, const WorkloadOptions& workloads)
    -> core::Result<SamplingPlan> {
  auto config = source_config_from(common);
  if (!config) return core::fail(std::move(config.error()));
  auto attainable = plan_attainable(common, workloads);
  if (!attainable) return core::fail(std::move(attainable.error()));
  return SamplingPlan{.config = std::move(*config), .attainable = std::move(*attainable)};
}

auto attainable_for(AttainablePlan plan, const OpenedSource& opened) -> std::unique_ptr<AttainableSol> {
  if (!plan.wanted || !opened.live) return nullptr;
  return make_live_attainable(opened.source->devices(), std::move(plan.declared));
}

auto run_engine_with_attainable(sources::CounterSource& source, std::vector<SampleSink*> sinks,
                                const EngineOptions& options, AttainableSol* attainable, std::ostream& err,
                                PmYieldSetup pm_yield, const EngineCompanion& companion) -> int {
  if (attainable == nullptr)
    return run_engine(source, std::move(sinks), options, err, {}, std::move(pm_yield), companion);
  attainable->start();
  const int code = run_engine(source, std::move(sinks), options, err, attainable->annotator(),
                              std::move(pm_yield), companion);
  attainable->stop();
  return code;
}

}  // namespace solscope::app
