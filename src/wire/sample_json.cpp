#include "wire/sample_json.hpp"

#include <string>

#include <nlohmann/json.hpp>

#include "core/metric_catalog.hpp"
#include "core/sol_terms.hpp"
#include "wire/json_fields.hpp"
#include "wire/json_number.hpp"

namespace solscope::wire {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

template <class Enum>
auto name_or_null(Enum value, Enum none) -> OrderedJson {
  return value == none ? OrderedJson(nullptr) : OrderedJson(std::string(core::to_string(value)));
}

void read_pipes_and_paths(const Json& json, core::SolSample& s) {
  if (const auto pipes = json.find("pipes"); pipes != json.end() && pipes->is_object()) {
    for (std::size_t i = 0; i < core::kPipeCount; ++i) {
      s.pipe_pct[i] = number_field(*pipes, core::to_string(static_cast<core::Pipe>(i)));
    }
  }
  if (const auto paths = json.find("paths"); paths != json.end() && paths->is_object()) {
    for (std::size_t i = 0; i < core::kMemPathCount; ++i) {
      s.path_pct[i] = number_field(*paths, core::to_string(static_cast<core::MemPath>(i)));
    }
  }
}

}  // namespace

auto sol_sample_to_json(const core::SolSample& sample, const core::DeviceInfo* device) -> OrderedJson {
  OrderedJson out = OrderedJson::object();
  out["device"] = sample.device_index;
  if (device != nullptr && !device->uuid.empty()) out["uuid"] = device->uuid;
  out["t_start_ns"] = sample.t_start_ns;
  out["t_end_ns"] = sample.t_end_ns;
  out["source"] = std::string(core::to_string(sample.source));
  out["flags"] = sample.flags;
  out["compute_sol_pct"] = number_or_null(sample.compute_sol_pct);
  out["compute_pipe"] = name_or_null(sample.compute_pipe, core::Pipe::kCount);
  out["memory_sol_pct"] = number_or_null(sample.memory_sol_pct);
  out["memory_path"] = name_or_null(sample.memory_path, core::MemPath::kCount);
  out["bound"] = std::string(core::to_string(sample.bound));
  OrderedJson pipes = OrderedJson::object();
  for (std::size_t i = 0; i < core::kPipeCount; ++i) {
    pipes[std::string(core::to_string(static_cast<core::Pipe>(i)))] = number_or_null(sample.pipe_pct[i]);
  }
  out["pipes"] = std::move(pipes);
  OrderedJson paths = OrderedJson::object();
  for (std::size_t i = 0; i < core::kMemPathCount; ++i) {
    paths[std::string(core::to_string(static_cast<core::MemPath>(i)))] = number_or_null(sample.path_pct[i]);
  }
  out["paths"] = std::move(paths);
  out["dram_bytes_per_s"] = number_or_null(sample.dram_bytes_per_s);
  out["attainable_compute_sol_pct"] = number_or_null(sample.attainable_compute_sol_pct);
  out["attainable_memory_sol_pct"] = number_or_null(sample.attainable_memory_sol_pct);
  for (const core::MetricDef& def : core::metric_catalog()) {
    out[std::string(def.name)] = number_or_null(sample.metrics[core::index_of(def.id)]);
  }
  return out;
}

auto window_to_json(const core::SolSample& window, const core::DeviceInfo* device) -> OrderedJson {
  return sol_sample_to_json(window, device);
}

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
  s.flags = integer_field<std::uint32_t>(json, "flags", 0);
  s.compute_sol_pct = number_field(json, "compute_sol_pct");
  s.compute_pipe = core::pipe_from_string(string_field(json, "compute_pipe")).value_or(core::Pipe::kCount);
  s.memory_sol_pct = number_field(json, "memory_sol_pct");
  s.memory_path =
      core::mem_path_from_string(string_field(json, "memory_path")).value_or(core::MemPath::kCount);
  s.bound = core::bound_from_string(string_field(json, "bound")).value_or(core::Bound::Unknown);
  read_pipes_and_paths(json, s);
  s.dram_bytes_per_s = number_field(json, "dram_bytes_per_s");
  s.attainable_compute_sol_pct = number_field(json, "attainable_compute_sol_pct");
  s.attainable_memory_sol_pct = number_field(json, "attainable_memory_sol_pct");
  for (const core::MetricDef& def : core::metric_catalog()) {
    s.metrics[core::index_of(def.id)] = number_field(json, def.name);
  }
  return s;
}

}  // namespace solscope::wire
