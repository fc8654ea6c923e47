// `solscope devices`: the GPUs, the counter source each would use and why, and the permission status.
#include <nlohmann/json.hpp>

#include <memory>
#include <sstream>

#include "attainable/attainable_wiring.hpp"
#include "cli/commands.hpp"
#include "cli/devices/devices_render.hpp"
#include "core/sol_terms.hpp"
#include "core/text.hpp"
#include "runtime/dcgm_suggestion.hpp"
#include "runtime/environment.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/gpu_backend.hpp"
#include "runtime/messages.hpp"
#include "wire/json_number.hpp"
#include "wire/json_text.hpp"

namespace solscope::app {
namespace {

auto workload_json(const workload::Workload& w, const AttainableFigures& f) -> nlohmann::json {
  return {{"status", w.status},
          {"engine", w.engine == workload::EngineKind::None ? "" : workload::to_string(w.engine)},
          {"model", w.model},
          {"config_path", w.config_path},
          {"tensor_parallel", w.tensor_parallel},
          {"attainable_compute_sol_pct", wire::number_or_null(f.compute_sol_pct)},
          {"attainable_memory_sol_pct", wire::number_or_null(f.memory_sol_pct)},
          {"ceiling", f.ceiling_note}};
}

/// One discovery pass over the probed GPUs (with their attainable SOL at the spec clock).
auto discover_workloads(const GpuProbe& probe, std::vector<workload::WorkloadDeclaration> declared)
    -> std::shared_ptr<const AttainableSnapshot> {
  std::vector<core::DeviceInfo> devices;
  for (const auto& d : probe.devices) {
    if (!d.status.lost && d.mig_instances == 0) devices.push_back(d.info);  // a split GPU: its instances
  }
  auto attainable = make_live_attainable(std::move(devices), std::move(declared));
  attainable->refresh_now();
  return attainable->snapshot();
}

void add_workloads_json(const AttainableSnapshot& snapshot, nlohmann::json& j) {
  for (auto& device : j["devices"]) {
    for (std::size_t i = 0; i < snapshot.workloads.size() && i < snapshot.devices.size(); ++i) {
      if (snapshot.workloads[i].gpu_index == device["index"].get<std::uint32_t>()) {
        device["workload"] = workload_json(snapshot.workloads[i], snapshot.devices[i]);
      }
    }
  }
}

}  // namespace

auto run_devices(const CommonOptions& /*common*/, const WorkloadOptions& workloads, const DevicesArgs& args,
                 std::ostream& out, std::ostream& err) -> int {
  auto probe = probe_gpus();
  if (!probe) {
    print_error(err, probe.error());
    return exit_code_for_source_error(probe.error());
  }
  std::shared_ptr<const AttainableSnapshot> found;
  if (args.workloads && !probe->devices.empty()) {
    WorkloadOptions asked = workloads;
    asked.disabled = false;  // `devices --workloads` asks for discovery explicitly
    auto declared = load_workload_declarations(asked, config::process_environment());
    if (!declared) {
      print_error(err, declared.error());
      return kExitUsage;
    }
    found = discover_workloads(*probe, std::move(*declared));
  }
  // A local dcgm-exporter when DCGM profiling holds the counters: loopback only, short timeouts.
  const auto loopback = net::make_loopback_http_client({.connect_timeout_s = 0.3, .read_timeout_s = 1.0});
  const std::string suggestion = dcgm_exporter_suggestion(*probe, *loopback);
  if (args.json) {
    nlohmann::json j = devices_json(*probe);
    if (found) add_workloads_json(*found, j);
    if (!suggestion.empty()) j["suggestion"] = suggestion;
    out << wire::json_text(j, wire::kJsonPretty) << '\n';
  } else {
    std::ostringstream text;  // names from the driver, models and paths from endpoints and configs
    text << format_devices_text(*probe);
    if (found) text << format_devices_workloads(*found);
    if (!suggestion.empty()) text << "\nhint: " << suggestion << '\n';
    out << core::terminal_safe(text.str(), core::LineBreaks::Keep);
  }
  return probe->devices.empty() ? kExitNoGpu : kExitOk;
}

}  // namespace solscope::app
