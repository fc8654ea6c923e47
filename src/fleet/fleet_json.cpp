#include "fleet/fleet_json.hpp"

#include <nlohmann/json.hpp>

#include "fleet/fleet_math.hpp"
#include "wire/json_number.hpp"
#include "wire/json_text.hpp"

namespace solscope::fleet {
namespace {

using nlohmann::json;

auto key_json(const GpuKey& k, SeriesKind kind) -> json {
  return json{{"host", k.host},
              {"gpu", k.gpu},
              {"label", k.label},
              {"uuid", k.uuid},
              {"model_name", k.model_name},
              {"job", k.job},
              {"series", series_kind_name(kind)}};
}

auto workload_row_json(const WorkloadRow& r) -> json {
  return json{{"group", r.group},
              {"gpus", r.gpus},
              {"allocated_gpu_hours", r.allocated_gpu_hours},
              {"idle_gpu_hours", r.idle_gpu_hours},
              {"busy_idle_gpu_hours", r.busy_idle_gpu_hours},
              {"wasted_gpu_hours", r.wasted_gpu_hours},
              {"compute_sol_mean_pct", wire::number_or_null<json>(r.compute_sol_mean_pct)}};
}

auto gpu_ref_json(const GpuKey& k) -> json {
  return json{{"host", k.host}, {"gpu", k.gpu}, {"label", k.label}};
}

auto iteration_group_json(const IterationGroup& g) -> json {
  json gpus = json::array();
  for (const auto& k : g.gpus) gpus.push_back(gpu_ref_json(k));
  return json{{"group", g.group},
              {"gpus", std::move(gpus)},
              {"straggler", gpu_ref_json(g.straggler)},
              {"straggler_compute_s", wire::number_or_null<json>(g.straggler_compute_s)},
              {"median_compute_s", wire::number_or_null<json>(g.median_compute_s)},
              {"spread_pct", wire::number_or_null<json>(g.spread_pct)},
              {"iteration_spread_pct", wire::number_or_null<json>(g.iteration_spread_pct)}};
}

auto thresholds_json() -> json {
  return {{"busy_util_pct", kBusyUtilPct},
          {"idle_compute_sol_pct", kIdleComputeSolPct},
          {"straggler_gap_pct", kStragglerGapPct}};
}

}  // namespace

auto series_kind_name(SeriesKind kind) -> const char* {
  return kind == SeriesKind::Solscope ? "solscope" : "dcgm";
}

auto snapshot_json(const FleetSnapshot& s) -> std::string {
  json rows = json::array();
  for (const auto& r : s.rows) {
    json row = key_json(r.key, r.series);
    row["compute_sol_pct"] = wire::number_or_null<json>(r.compute_sol_pct);
    row["compute_sol_mean_pct"] = wire::number_or_null<json>(r.compute_sol_mean_pct);
    row["memory_sol_pct"] = wire::number_or_null<json>(r.memory_sol_pct);
    row["memory_sol_mean_pct"] = wire::number_or_null<json>(r.memory_sol_mean_pct);
    row["gpu_util_pct"] = wire::number_or_null<json>(r.gpu_util_pct);
    row["gpu_util_mean_pct"] = wire::number_or_null<json>(r.gpu_util_mean_pct);
    row["busy_idle_gpu_hours"] = wire::number_or_null<json>(r.busy_idle_gpu_hours);
    row["straggler_gap_pct"] = wire::number_or_null<json>(r.straggler_gap_pct);
    row["straggler"] = r.straggler;
    row["iteration_s"] = wire::number_or_null<json>(r.iteration_s);
    row["compute_ratio"] = wire::number_or_null<json>(r.compute_ratio);
    row["exposed_communication_ratio"] = wire::number_or_null<json>(r.exposed_communication_ratio);
    row["iteration_compute_s"] = wire::number_or_null<json>(r.iteration_compute_s);
    row["job_label_value"] = r.job_label_value;
    row["iteration_group"] = r.iteration_group;
    row["iteration_straggler"] = r.iteration_straggler;
    rows.push_back(std::move(row));
  }
  json groups = json::array();
  for (const auto& g : s.iteration_groups) groups.push_back(iteration_group_json(g));
  const FleetTotals t = fleet_totals(s.rows);
  const json doc = {
      {"source", s.source},
      {"window_start_ns", s.window_start_ns},
      {"window_end_ns", s.window_end_ns},
      {"step_ns", s.step_ns},
      {"notes", s.notes},
      {"thresholds", thresholds_json()},
      {"totals",
       {{"gpus", t.gpus},
        {"stragglers", t.stragglers},
        {"busy_idle_gpu_hours", t.busy_idle_gpu_hours},
        {"compute_sol_mean_pct", wire::number_or_null<json>(t.compute_sol_mean_pct)}}},
      {"rows", std::move(rows)},
      {"job_label", s.job_label},
      {"iteration_groups", std::move(groups)},
  };
  return wire::json_text(doc);
}

auto workloads_json(const WorkloadRollup& r) -> std::string {
  json rows = json::array();
  for (const auto& row : r.rows) rows.push_back(workload_row_json(row));
  json totals = workload_row_json(workload_totals(r.rows));
  totals.erase("group");
  const json doc = {
      {"source", r.source},
      {"by", group_by_name(r.by)},
      {"window_start_ns", r.window_start_ns},
      {"window_end_ns", r.window_end_ns},
      {"step_ns", r.step_ns},
      {"notes", r.notes},
      {"thresholds", thresholds_json()},
      {"totals", std::move(totals)},
      {"rows", std::move(rows)},
  };
  return wire::json_text(doc);
}

auto history_json(const GpuHistory& h) -> std::string {
  json points = json::array();
  for (const auto& p : h.points) {
    points.push_back({{"t_ns", p.t_ns},
                      {"compute_sol_pct", wire::number_or_null<json>(p.compute_sol_pct)},
                      {"memory_sol_pct", wire::number_or_null<json>(p.memory_sol_pct)},
                      {"gpu_util_pct", wire::number_or_null<json>(p.gpu_util_pct)}});
  }
  json doc = key_json(h.key, h.series);
  doc["notes"] = h.notes;
  doc["points"] = std::move(points);
  return wire::json_text(doc);
}

}  // namespace solscope::fleet
