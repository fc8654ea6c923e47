#include "server/sample_json.hpp"

#include <string>

#include <nlohmann/json.hpp>

#include "core/metric_catalog.hpp"
#include "json/json_fields.hpp"
#include "trace/json_format.hpp"

namespace solscope::server {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

auto number_at(const Json& object, const char* key) -> double {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : core::kUnknown;
}

using solscope::json::string_field;

template <class T>
auto integer_at(const Json& object, const char* key, T fallback) -> T {
  const auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<T>() : fallback;
}

void read_pipes_and_paths(const Json& json, core::SolSample& s) {
  if (const auto pipes = json.find("pipes"); pipes != json.end() && pipes->is_object()) {
    for (std::size_t i = 0; i < core::kPipeCount; ++i) {
      s.pipe_pct[i] = number_at(*pipes, std::string(core::to_string(static_cast<core::Pipe>(i))).c_str());
    }
  }
  if (const auto paths = json.find("paths"); paths != json.end() && paths->is_object()) {
    for (std::size_t i = 0; i < core::kMemPathCount; ++i) {
      s.path_pct[i] = number_at(*paths, std::string(core::to_string(static_cast<core::MemPath>(i))).c_str());
    }
  }
}

}  // namespace

auto sample_from_json(const Json& json) -> core::Result<core::SolSample> {
  if (!json.is_object()) return core::fail(core::ErrorCode::InvalidArgument, "sample JSON is not an object");
  for (const char* key : {"device", "t_start_ns", "t_end_ns"}) {
    const auto it = json.find(key);
    if (it == json.end() || !it->is_number_integer()) {
      return core::fail(core::ErrorCode::InvalidArgument, std::string("sample JSON has no integer ") + key);
    }
  }
  core::SolSample s;
  s.device_index = json["device"].get<std::uint32_t>();
  s.t_start_ns = json["t_start_ns"].get<std::int64_t>();
  s.t_end_ns = json["t_end_ns"].get<std::int64_t>();
  s.source = core::source_kind_from_string(string_field(json, "source")).value_or(core::SourceKind::None);
  s.flags = integer_at<std::uint32_t>(json, "flags", 0);
  s.compute_sol_pct = number_at(json, "compute_sol_pct");
  s.compute_pipe = core::pipe_from_string(string_field(json, "compute_pipe")).value_or(core::Pipe::kCount);
  s.memory_sol_pct = number_at(json, "memory_sol_pct");
  s.memory_path =
      core::mem_path_from_string(string_field(json, "memory_path")).value_or(core::MemPath::kCount);
  s.bound = core::bound_from_string(string_field(json, "bound")).value_or(core::Bound::Unknown);
  read_pipes_and_paths(json, s);
  s.dram_bytes_per_s = number_at(json, "dram_bytes_per_s");
  s.attainable_compute_sol_pct = number_at(json, "attainable_compute_sol_pct");
  s.attainable_memory_sol_pct = number_at(json, "attainable_memory_sol_pct");
  for (const core::MetricDef& def : core::metric_catalog()) {
    s.metrics[core::index_of(def.id)] = number_at(json, std::string(def.name).c_str());
  }
  return s;
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
  out["max_sm_clock_mhz"] = trace::number_or_null(info.max_sm_clock_mhz);
  out["max_mem_clock_mhz"] = trace::number_or_null(info.max_mem_clock_mhz);
  out["dram_peak_bytes_per_s"] = trace::number_or_null(info.dram_peak_bytes_per_s);
  out["source"] = std::string(core::to_string(device.source));
  out["source_note"] = device.source_note;
  out["workload_note"] = device.workload_note;
  out["lost"] = device.lost;
  OrderedJson processes = OrderedJson::array();
  for (const core::GpuProcess& p : device.processes) {
    processes.push_back(OrderedJson{{"pid", p.pid},
                                    {"user", p.user},
                                    {"gpu_memory_bytes", p.gpu_memory_bytes},
                                    {"command", p.command},
                                    {"container_id", p.container_id}});
  }
  out["processes"] = std::move(processes);
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
  d.info.sm_count = integer_at<std::uint32_t>(json, "sm_count", 0);
  d.info.memory_total_bytes = integer_at<std::uint64_t>(json, "memory_total_bytes", 0);
  d.info.max_sm_clock_mhz = number_at(json, "max_sm_clock_mhz");
  d.info.max_mem_clock_mhz = number_at(json, "max_mem_clock_mhz");
  d.info.dram_peak_bytes_per_s = number_at(json, "dram_peak_bytes_per_s");
  d.source = core::source_kind_from_string(string_field(json, "source")).value_or(core::SourceKind::None);
  d.source_note = string_field(json, "source_note");
  d.workload_note = string_field(json, "workload_note");
  const auto lost = json.find("lost");
  d.lost = lost != json.end() && lost->is_boolean() && lost->get<bool>();
  if (const auto it = json.find("processes"); it != json.end() && it->is_array()) {
    for (const Json& p : *it) {
      if (!p.is_object()) continue;
      d.processes.push_back(
          core::GpuProcess{.pid = integer_at<std::int32_t>(p, "pid", 0),
                           .user = string_field(p, "user"),
                           .gpu_memory_bytes = integer_at<std::uint64_t>(p, "gpu_memory_bytes", 0),
                           .command = string_field(p, "command"),
                           .container_id = string_field(p, "container_id")});
    }
  }
  return d;
}

}  // namespace solscope::server
