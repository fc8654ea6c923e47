// `solscope devices`: the GPUs, the counter source each would use and why, and the permission status.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <memory>

#include "app/attainable_wiring.hpp"
#include "app/commands.hpp"
#include "app/config/environment.hpp"
#include "app/exit_codes.hpp"
#include "app/messages.hpp"
#include "core/sol_terms.hpp"
#include "trace/json_format.hpp"
#ifdef SOLSCOPE_HAVE_NVIDIA
#include "sources/nvidia/nvidia_source.hpp"
#include "sources/nvidia/pm_sampler.hpp"
#endif

namespace solscope::app {

#ifdef SOLSCOPE_HAVE_NVIDIA
namespace {

auto gib(std::uint64_t bytes) -> double {
  return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
}

auto source_line(const nvidia::NvidiaDeviceProbe& d) -> std::string {
  if (d.pm_sampling_would_try) return "PM sampling (CUPTI): every pipe and path";
  switch (d.status.source) {
    case core::SourceKind::Gpm:
      return "NVML GPM: tensor/FP pipes, DRAM, SM activity (coarser than PM sampling)";
    case core::SourceKind::NvmlOnly:
      return "NVML only: classic utilization, clocks, power; SOL n/a";
    default:
      return std::string(core::to_string(d.status.source));
  }
}

void print_text(const nvidia::NvidiaProbe& probe, std::ostream& out) {
  out << fmt::format("NVIDIA driver {}, {} GPU(s)\n", probe.driver_version, probe.devices.size());
  out << fmt::format("GPU counters (PM sampling): {}: {}\n", to_string(probe.permission.allowed),
                     probe.permission.reason);
  if (!probe.permission.fix.empty()) out << "  how to allow: " << probe.permission.fix << '\n';
  for (const auto& d : probe.devices) {
    out << fmt::format("\nGPU {}  {}  {}  pci {}  {:.0f} GiB{}\n", d.info.index, d.info.name, d.info.uuid,
                       d.info.pci_bus_id, gib(d.info.memory_total_bytes), d.mig_enabled ? "  MIG on" : "");
    out << "  source: " << source_line(d) << (d.status.lost ? "  [LOST]" : "") << '\n';
    if (!d.status.reason.empty()) out << "  why: " << d.status.reason << '\n';
    if (!d.gpm.supported && !d.gpm.reason.empty()) out << "  GPM: " << d.gpm.reason << '\n';
    if (!d.status.hint.empty()) out << "  fix: " << d.status.hint << '\n';
  }
}

auto workload_json(const workload::Workload& w, const AttainableFigures& f) -> nlohmann::json {
  return {{"status", w.status},
          {"engine", w.engine == workload::EngineKind::None ? "" : workload::to_string(w.engine)},
          {"model", w.model},
          {"config_path", w.config_path},
          {"tensor_parallel", w.tensor_parallel},
          {"attainable_compute_sol_pct", trace::number_or_null(f.compute_sol_pct)},
          {"attainable_memory_sol_pct", trace::number_or_null(f.memory_sol_pct)},
          {"ceiling", f.ceiling_note}};
}

auto to_json(const nvidia::NvidiaProbe& probe) -> nlohmann::json {
  nlohmann::json j{{"driver_version", probe.driver_version},
                   {"profiling_allowed", to_string(probe.permission.allowed)},
                   {"profiling_reason", probe.permission.reason},
                   {"profiling_fix", probe.permission.fix},
                   {"devices", nlohmann::json::array()}};
  for (const auto& d : probe.devices) {
    j["devices"].push_back(
        {{"index", d.info.index},
         {"name", d.info.name},
         {"uuid", d.info.uuid},
         {"pci_bus_id", d.info.pci_bus_id},
         {"memory_total_bytes", d.info.memory_total_bytes},
         {"source", d.pm_sampling_would_try ? "pm_sampling" : core::to_string(d.status.source)},
         {"reason", d.status.reason},
         {"hint", d.status.hint},
         {"gpm_supported", d.gpm.supported},
         {"mig_enabled", d.mig_enabled},
         {"lost", d.status.lost}});
  }
  return j;
}

/// One discovery pass over the probed GPUs (with their attainable SOL at the spec clock).
auto discover_workloads(const nvidia::NvidiaProbe& probe, std::vector<workload::WorkloadDeclaration> declared)
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
  nvidia::NvidiaSourceDeps deps;
  deps.make_pm_sampling = [] {
    return nvidia::make_pm_sampler({.cupti_search = config::cupti_search_from_environment()});
  };
  const nvidia::NvidiaSource source(std::move(deps));
  auto probe = source.probe();
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
  if (args.json) {
    nlohmann::json j = to_json(*probe);
    if (found) add_workloads_json(*found, j);
    out << j.dump(2) << '\n';
  } else {
    print_text(*probe, out);
    if (found) out << format_devices_workloads(*found);
  }
  return probe->devices.empty() ? kExitNoGpu : kExitOk;
}

#else

auto run_devices(const CommonOptions&, const WorkloadOptions&, const DevicesArgs&, std::ostream&,
                 std::ostream& err) -> int {
  print_error(err,
              core::Error{core::ErrorCode::Unimplemented, "this solscope was built without the NVIDIA source",
                          "rebuild with the CUDA toolkit headers (CUDA >= 12.6) installed"});
  return kExitNoGpu;
}

#endif

}  // namespace solscope::app
