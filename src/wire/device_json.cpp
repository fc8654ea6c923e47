#include "wire/device_json.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "wire/json_fields.hpp"
#include "wire/json_number.hpp"
#include "wire/workload_json.hpp"

namespace solscope::wire {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

namespace {

/// A count or id that is -1 when unknown, as null.
auto index_or_null(std::int32_t value) -> OrderedJson {
  return value < 0 ? OrderedJson(nullptr) : OrderedJson(value);
}

/// The inverse of add_mig_identity (label is derived, not read; gpu only when it differs from index).
void read_mig_fields(const Json& json, core::DeviceInfo& info) {
  info.parent_uuid = string_field(json, "parent_uuid");
  info.mig_profile = string_field(json, "mig_profile");
  info.mig_instance_id = std::max(-1, integer_field<std::int32_t>(json, "mig_instance_id", -1));
  info.mig_compute_instance_id =
      std::max(-1, integer_field<std::int32_t>(json, "mig_compute_instance_id", -1));
  info.mig_sm_share = number_field(json, "mig_sm_share");
  info.mig_memory_share = number_field(json, "mig_memory_share");
  const auto gpu = integer_field<std::int32_t>(json, "gpu", -1);
  if (gpu >= 0 && static_cast<std::uint32_t>(gpu) != info.index) info.gpu_index = gpu;
}

}  // namespace

void add_mig_identity(OrderedJson& out, const core::DeviceInfo& info) {
  out["label"] = core::device_label(info);
  out["gpu"] = info.gpu_number();
  out["parent_uuid"] = info.parent_uuid;
  out["mig_profile"] = info.mig_profile;
  out["mig_instance_id"] = index_or_null(info.mig_instance_id);
  out["mig_compute_instance_id"] = index_or_null(info.mig_compute_instance_id);
  out["mig_sm_share"] = number_or_null(info.mig_sm_share);
  out["mig_memory_share"] = number_or_null(info.mig_memory_share);
}

auto device_state_to_json(const core::DeviceState& device) -> OrderedJson {
  const core::DeviceInfo& info = device.info;
  OrderedJson out = OrderedJson::object();
  out["index"] = info.index;
  out["uuid"] = info.uuid;
  out["name"] = info.name;
  out["chip"] = info.chip;
  out["pci_bus_id"] = info.pci_bus_id;
  out["sm_count"] = info.sm_count;
  out["memory_total_bytes"] = info.memory_total_bytes;
  out["max_sm_clock_mhz"] = number_or_null(info.max_sm_clock_mhz);
  out["max_mem_clock_mhz"] = number_or_null(info.max_mem_clock_mhz);
  out["dram_peak_bytes_per_s"] = number_or_null(info.dram_peak_bytes_per_s);
  add_mig_identity(out, info);
  out["source"] = std::string(core::to_string(device.source));
  out["source_note"] = device.source_note;
  out["workload_note"] = device.workload_note;
  out["lost"] = device.lost;
  OrderedJson processes = OrderedJson::array();
  for (const core::GpuProcess& p : device.processes) {
    OrderedJson process{{"pid", p.pid},
                        {"user", p.user},
                        {"gpu_memory_bytes", p.gpu_memory_bytes},
                        {"command", p.command},
                        {"container_id", p.container_id}};
    add_process_workload(process, p);
    processes.push_back(std::move(process));
  }
  out["processes"] = std::move(processes);
  out["workloads"] = gpu_workloads_to_json(device.workloads);
  return out;
}

auto device_state_from_json(const Json& json) -> core::Result<core::DeviceState> {
  if (!json.is_object() || !json.contains("index") || !json["index"].is_number_integer()) {
    return core::fail(core::ErrorCode::InvalidArgument, "device JSON has no integer index");
  }
  core::DeviceState d;
  d.info.index = json["index"].get<std::uint32_t>();
  d.info.uuid = string_field(json, "uuid");
  d.info.name = string_field(json, "name");
  d.info.chip = string_field(json, "chip");
  d.info.pci_bus_id = string_field(json, "pci_bus_id");
  d.info.sm_count = integer_field<std::uint32_t>(json, "sm_count", 0);
  d.info.memory_total_bytes = integer_field<std::uint64_t>(json, "memory_total_bytes", 0);
  d.info.max_sm_clock_mhz = number_field(json, "max_sm_clock_mhz");
  d.info.max_mem_clock_mhz = number_field(json, "max_mem_clock_mhz");
  d.info.dram_peak_bytes_per_s = number_field(json, "dram_peak_bytes_per_s");
  read_mig_fields(json, d.info);
  d.source = core::source_kind_from_string(string_field(json, "source")).value_or(core::SourceKind::None);
  d.source_note = string_field(json, "source_note");
  d.workload_note = string_field(json, "workload_note");
  const auto lost = json.find("lost");
  d.lost = lost != json.end() && lost->is_boolean() && lost->get<bool>();
  if (const auto it = json.find("processes"); it != json.end() && it->is_array()) {
    for (const Json& p : *it) {
      if (!p.is_object()) continue;
      core::GpuProcess process{.pid = integer_field<std::int32_t>(p, "pid", 0),
                               .user = string_field(p, "user"),
                               .gpu_memory_bytes = integer_field<std::uint64_t>(p, "gpu_memory_bytes", 0),
                               .command = string_field(p, "command"),
                               .container_id = string_field(p, "container_id")};
      read_process_workload(p, process);
      d.processes.push_back(std::move(process));
    }
  }
  if (const auto it = json.find("workloads"); it != json.end()) d.workloads = gpu_workloads_from_json(*it);
  return d;
}

}  // namespace solscope::wire
