#include "cli/devices/devices_render.hpp"

#include <fmt/format.h>

#include <sstream>

#include "core/device_info.hpp"
#include "wire/device_json.hpp"
#include "wire/json_number.hpp"

namespace solscope::app {
namespace {

auto gib(std::uint64_t bytes) -> double {
  return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
}

void print_reasons(const GpuProbeDevice& d, const std::string& indent, std::ostream& out) {
  if (!d.status.reason.empty()) out << indent << "why: " << d.status.reason << '\n';
  if (!d.gpm_supported && !d.gpm_reason.empty() && !d.info.is_mig()) {
    out << indent << "GPM: " << d.gpm_reason << '\n';  // an instance's GPM reason is part of its why
  }
  if (!d.status.hint.empty()) out << indent << "fix: " << d.status.hint << '\n';
}

void print_gpu(const GpuProbeDevice& d, std::ostream& out) {
  out << fmt::format("\nGPU {}  {}  {}  pci {}  {:.0f} GiB{}\n", d.info.index, d.info.name, d.info.uuid,
                     d.info.pci_bus_id, gib(d.info.memory_total_bytes), d.mig_enabled ? "  MIG on" : "");
  out << "  source: " << d.source_text << (d.status.lost ? "  [LOST]" : "") << '\n';
  if (d.mig_instances > 0) return;  // the instances below say how each is sampled
  print_reasons(d, "  ", out);
  if (!d.mig_note.empty()) out << "  MIG: " << d.mig_note << '\n';
}

void print_instance(const GpuProbeDevice& d, std::ostream& out) {
  out << fmt::format("  {}  {}  {} SMs  {:.2f} GiB  source: {}{}\n", core::device_label(d.info), d.info.uuid,
                     d.info.sm_count, gib(d.info.memory_total_bytes), d.source_text,
                     d.status.lost ? "  [LOST]" : "");
  print_reasons(d, "    ", out);
}

}  // namespace

auto format_devices_text(const GpuProbe& probe) -> std::string {
  std::ostringstream out;
  std::size_t gpus = 0;
  for (const auto& d : probe.devices) gpus += d.info.is_mig() ? 0 : 1;
  out << fmt::format("{} driver {}, {} GPU(s)", probe.vendor, probe.driver_version, gpus);
  if (gpus != probe.devices.size()) out << fmt::format(", {} MIG instance(s)", probe.devices.size() - gpus);
  out << '\n'
      << fmt::format("GPU counters (PM sampling): {}: {}\n", probe.profiling_allowed, probe.profiling_reason);
  if (!probe.profiling_fix.empty()) out << "  how to allow: " << probe.profiling_fix << '\n';
  for (const auto& d : probe.devices) {
    if (d.info.is_mig()) {
      print_instance(d, out);
    } else {
      print_gpu(d, out);
    }
  }
  return out.str();
}

auto devices_json(const GpuProbe& probe) -> nlohmann::json {
  nlohmann::json j{{"driver_version", probe.driver_version},
                   {"profiling_allowed", probe.profiling_allowed},
                   {"profiling_reason", probe.profiling_reason},
                   {"profiling_fix", probe.profiling_fix},
                   {"devices", nlohmann::json::array()}};
  for (const auto& d : probe.devices) {
    nlohmann::json dev{{"index", d.info.index},
                       {"name", d.info.name},
                       {"uuid", d.info.uuid},
                       {"pci_bus_id", d.info.pci_bus_id},
                       {"memory_total_bytes", d.info.memory_total_bytes},
                       {"source", d.source_id},
                       {"reason", d.status.reason},
                       {"hint", d.status.hint},
                       {"gpm_supported", d.gpm_supported},
                       {"mig_enabled", d.mig_enabled},
                       {"lost", d.status.lost}};
    if (d.mig_enabled) {
      dev["mig_instances"] = d.mig_instances;
      dev["mig_note"] = d.mig_note;
    }
    if (d.info.is_mig()) {
      nlohmann::ordered_json identity;
      wire::add_mig_identity(identity, d.info);
      dev.update(nlohmann::json(identity));
      dev["sm_count"] = d.info.sm_count;
    }
    j["devices"].push_back(std::move(dev));
  }
  return j;
}

}  // namespace solscope::app
