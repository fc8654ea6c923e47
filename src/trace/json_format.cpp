#include "trace/json_format.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/metric_catalog.hpp"
#include "core/sol_terms.hpp"

namespace solscope::trace {
namespace {

using Json = nlohmann::ordered_json;

template <class Enum>
auto name_or_null(Enum value, Enum none) -> Json {
  return value == none ? Json(nullptr) : Json(std::string(core::to_string(value)));
}

}  // namespace

auto number_or_null(double v) -> nlohmann::ordered_json {
  return std::isnan(v) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(v);
}

auto sol_sample_to_json(const core::SolSample& sample, const core::DeviceInfo* device) -> Json {
  Json out = Json::object();
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
  Json pipes = Json::object();
  for (std::size_t i = 0; i < core::kPipeCount; ++i) {
    pipes[std::string(core::to_string(static_cast<core::Pipe>(i)))] = number_or_null(sample.pipe_pct[i]);
  }
  out["pipes"] = std::move(pipes);
  Json paths = Json::object();
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

}  // namespace solscope::trace
