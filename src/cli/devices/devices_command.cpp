// `solscope devices`: the GPUs, the counter source each would use and why, and the permission status.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <memory>
#include <sstream>

#include "attainable/attainable_wiring.hpp"
#include "cli/commands.hpp"
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

auto gib(std::uint64_t bytes) -> double {
  return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
}

void print_text(const GpuProbe& probe, std::ostream& out) {
  out << fmt::format("{} driver {}, {} GPU(s)\n", probe.vendor, probe.driver_version, probe.devices.size());
  out << fmt::format("GPU counters (PM sampling): {}: {}\n", probe.profiling_allowed, probe.profiling_reason);
  if (!probe.profiling_fix.empty()) out << "  how to allow: " << probe.profiling_fix << '\n';
  for (const auto& d : probe.devices) {
    out << fmt::format("\nGPU {}  {}  {}  pci {}  {:.0f} GiB{}\n", d.info.index, d.info.name, d.info.uuid,
                       d.info.pci_bus_id, gib(d.info.memory_total_bytes), d.mig_enabled ? "  MIG on" : "");
    out << "  source: " << d.source_text << (d.status.lost ? "  [LOST]" : "") << '\n';
    if (!d.status.reason.empty()) out << "  why: " << d.status.reason << '\n';
    if (!d.gpm_supported && !d.gpm_reason.empty()) out << "  GPM: " << d.gpm_reason << '\n';
    if (!d.status.hint.empty()) out << "  fix: " << d.status.hint << '\n';
  }
}

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

auto to_json(const GpuProbe& probe) -> nlohmann::json {
  nlohmann::json j{{"driver_version", probe.driver_version},
                   {"profiling_allowed", probe.profiling_allowed},
                   {"profiling_reason", probe.profiling_reason},
                   {"profiling_fix", probe.profiling_fix},
                   {"devices", nlohmann::json::array()}};
  for (const auto& d : probe.devices) {
    j["devices"].push_back({{"index", d.info.index},
                            {"name", d.info.name},
                            {"uuid", d.info.uuid},
                            {"pci_bus_id", d.info.pci_bus_id},
                            {"memory_total_bytes", d.info.memory_total_bytes},
                            {"source", d.source_id},
                            {"reason", d.status.reason},
                            {"hint", d.status.hint},
                            {"gpm_supported", d.gpm_supported},
                            {"mig_enabled", d.mig_enabled},
                            {"lost", d.status.lost}});
  }
  return j;
}

/// One discovery pass over the probed GPUs (with their attainable SOL at the spec clock).
auto discover_workloads(const GpuProbe& probe, std::vector<workload::WorkloadDeclaration> declared)
    -> std::shared_ptr<const AttainableSnapshot> {
  std::vector<core::DeviceInfo> devices;
  for (const auto& d : probe.devices) {
    if (!d.status.lost) devices.push_back(d.info);
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
    nlohmann::json j = to_json(*probe);
    if (found) add_workloads_json(*found, j);
    if (!suggestion.empty()) j["suggestion"] = suggestion;
    out << wire::json_text(j, wire::kJsonPretty) << '\n';
  } else {
    std::ostringstream text;  // names from the driver, models and paths from endpoints and configs
    print_text(*probe, text);
    if (found) text << format_devices_workloads(*found);
    if (!suggestion.empty()) text << "\nhint: " << suggestion << '\n';
    out << core::terminal_safe(text.str(), core::LineBreaks::Keep);
  }
  return probe->devices.empty() ? kExitNoGpu : kExitOk;
}

}  // namespace solscope::app
