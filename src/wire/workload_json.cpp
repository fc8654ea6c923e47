#include "wire/workload_json.hpp"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "wire/json_fields.hpp"
#include "wire/json_number.hpp"

namespace solscope::wire {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

namespace {

/// A known percentage or share, else null (the rule of json_number.hpp for an optional).
auto optional_or_null(const std::optional<double>& v) -> OrderedJson {
  return v ? number_or_null(*v) : OrderedJson(nullptr);
}

/// A number at `key`, nullopt when absent, null or not a number.
auto optional_number(const Json& json, const char* key) -> std::optional<double> {
  const double v = number_field(json, key);
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

auto pids_to_json(const std::vector<std::int32_t>& pids) -> OrderedJson {
  OrderedJson out = OrderedJson::array();
  for (const std::int32_t pid : pids) out.push_back(pid);
  return out;
}

auto read_pids(const Json& json) -> std::vector<std::int32_t> {
  std::vector<std::int32_t> out;
  const auto it = json.find("pids");
  if (it == json.end() || !it->is_array()) return out;
  for (const Json& p : *it) {
    if (p.is_number_integer()) out.push_back(p.get<std::int32_t>());
  }
  return out;
}

auto read_origin(const Json& json) -> core::WorkloadOrigin {
  return core::parse_workload_origin(string_field(json, "origin")).value_or(core::WorkloadOrigin::kNone);
}

}  // namespace

void add_workload_identity(OrderedJson& out, const core::WorkloadIdentity& id) {
  out["pod"] = id.pod;
  out["namespace"] = id.pod_namespace;
  out["container"] = id.container;
  out["hpc_job"] = id.hpc_job;
  out["user"] = id.user;
  out["display"] = id.display();
}

auto read_workload_identity(const Json& json) -> core::WorkloadIdentity {
  return {.pod = string_field(json, "pod"),
          .pod_namespace = string_field(json, "namespace"),
          .container = string_field(json, "container"),
          .hpc_job = string_field(json, "hpc_job"),
          .user = string_field(json, "user")};
}

void add_process_workload(OrderedJson& out, const core::GpuProcess& process) {
  OrderedJson workload = OrderedJson::object();
  add_workload_identity(workload, process.workload);
  out["workload"] = std::move(workload);
  out["origin"] = std::string(core::to_string(process.origin));
  out["sm_pct"] = optional_or_null(process.sm_pct);
  out["mps"] = process.mps;
}

void read_process_workload(const Json& json, core::GpuProcess& process) {
  if (!json.is_object()) return;
  if (const auto it = json.find("workload"); it != json.end()) process.workload = read_workload_identity(*it);
  process.origin = read_origin(json);
  process.sm_pct = optional_number(json, "sm_pct");
  const auto mps = json.find("mps");
  process.mps = mps != json.end() && mps->is_boolean() && mps->get<bool>();
}

auto gpu_workloads_to_json(const core::GpuWorkloads& workloads) -> OrderedJson {
  OrderedJson items = OrderedJson::array();
  for (const core::WorkloadShare& w : workloads.workloads) {
    OrderedJson item = OrderedJson::object();
    add_workload_identity(item, w.id);
    item["origin"] = std::string(core::to_string(w.origin));
    item["pids"] = pids_to_json(w.pids);
    item["sm_pct"] = optional_or_null(w.sm_pct);
    item["fraction"] = optional_or_null(w.fraction);
    items.push_back(std::move(item));
  }
  OrderedJson out = OrderedJson::object();
  out["sharing"] = std::string(core::to_string(workloads.sharing));
  out["sharing_label"] = std::string(core::sharing_label(workloads.sharing));
  out["note"] = workloads.note;
  out["items"] = std::move(items);
  return out;
}

auto gpu_workloads_from_json(const Json& json) -> core::GpuWorkloads {
  core::GpuWorkloads out;
  if (!json.is_object()) return out;
  out.sharing =
      core::parse_workload_sharing(string_field(json, "sharing")).value_or(core::WorkloadSharing::kNone);
  out.note = string_field(json, "note");
  const auto items = json.find("items");
  if (items == json.end() || !items->is_array()) return out;
  for (const Json& item : *items) {
    if (!item.is_object()) continue;
    out.workloads.push_back(core::WorkloadShare{.id = read_workload_identity(item),
                                                .origin = read_origin(item),
                                                .pids = read_pids(item),
                                                .sm_pct = optional_number(item, "sm_pct"),
                                                .fraction = optional_number(item, "fraction")});
  }
  return out;
}

auto workload_rollup_to_json(std::span<const core::WorkloadRollup> rollup) -> OrderedJson {
  OrderedJson out = OrderedJson::array();
  for (const core::WorkloadRollup& r : rollup) {
    OrderedJson row = OrderedJson::object();
    add_workload_identity(row, r.id);
    row["origin"] = std::string(core::to_string(r.origin));
    row["sharing"] = r.sharing_text();
    OrderedJson gpus = OrderedJson::array();
    for (const core::WorkloadGpu& g : r.gpus) {
      gpus.push_back(OrderedJson{{"device", g.device},
                                 {"label", g.label},
                                 {"sharing", std::string(core::to_string(g.sharing))},
                                 {"fraction", optional_or_null(g.fraction)},
                                 {"sm_pct", optional_or_null(g.sm_pct)},
                                 {"pids", pids_to_json(g.pids)}});
    }
    row["gpus"] = std::move(gpus);
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace solscope::wire
