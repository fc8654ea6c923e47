#include "report/report_json.hpp"

#include "core/device_info.hpp"
#include "report/detail/phase_detection.hpp"
#include "report/detail/training_steps_present.hpp"
#include "report/detail/workload_totals.hpp"
#include "wire/json_number.hpp"

namespace solscope::report {
namespace {

using Json = nlohmann::ordered_json;

auto seconds(std::int64_t ns) -> double {
  return static_cast<double>(ns) / static_cast<double>(core::kNsPerS);
}

auto pipe_name(core::Pipe pipe) -> Json {
  return pipe == core::Pipe::kCount ? Json(nullptr) : Json(std::string(core::to_string(pipe)));
}

auto path_name(core::MemPath path) -> Json {
  return path == core::MemPath::kCount ? Json(nullptr) : Json(std::string(core::to_string(path)));
}

auto bound_seconds(const BoundTimes& times) -> Json {
  Json out = Json::object();
  for (std::size_t i = 0; i < kBoundOrder.size(); ++i) {
    out[std::string(core::to_string(kBoundOrder[i]))] = seconds(times[i]);
  }
  return out;
}

/// The four SOL keys that GPUs, phases and kernels share, in this order.
void put_sol(Json& out, double compute_sol_pct, core::Pipe pipe, double memory_sol_pct, core::MemPath path) {
  out["compute_sol_pct"] = wire::number_or_null(compute_sol_pct);
  out["compute_pipe"] = pipe_name(pipe);
  out["memory_sol_pct"] = wire::number_or_null(memory_sol_pct);
  out["memory_path"] = path_name(path);
}

void put_figures(Json& out, const Figures& f) {
  put_sol(out, f.compute_sol_pct, f.compute_pipe, f.memory_sol_pct, f.memory_path);
  out["gpu_util_pct"] = wire::number_or_null(f.gpu_util_pct);
  out["sm_active_pct"] = wire::number_or_null(f.sm_active_pct);
  out["mean_power_w"] = wire::number_or_null(f.mean_power_w);
  out["energy_j"] = wire::number_or_null(f.energy_j);
  out["power_known_s"] = seconds(f.power_known_ns);
}

auto phase_json(const Phase& p, std::int64_t origin_ns) -> Json {
  Json out{{"bound", std::string(core::to_string(p.bound))},
           {"start_ns", p.start_ns},
           {"end_ns", p.end_ns},
           {"start_s", seconds(p.start_ns - origin_ns)},
           {"duration_s", seconds(p.end_ns - p.start_ns)},
           {"sampled_s", seconds(p.sampled_ns)},
           {"samples", p.samples}};
  out["bound_s"] = bound_seconds(p.bound_ns);
  put_figures(out, p.figures);
  return out;
}

auto kernel_json(const KernelRow& k) -> Json {
  Json out{
      {"name", k.name},
      {"calls", k.calls},
      {"total_s", seconds(k.total_ns)},
      {"mean_us", k.calls > 0 ? Json(static_cast<double>(k.total_ns) / 1e3 / static_cast<double>(k.calls))
                              : Json(nullptr)},
      {"time_share_pct", k.time_share_pct},
      {"sampled_s", seconds(k.sampled_ns)}};
  put_sol(out, k.compute_sol_pct, k.compute_pipe, k.memory_sol_pct, k.memory_path);
  out["overlapped"] = k.overlapped();
  out["overlapped_calls"] = k.overlapped_calls;
  return out;
}

auto gpu_json(const GpuReport& g) -> Json {
  Json out{{"index", g.device.index},
           {"label", core::device_label(g.device)},
           {"gpu", g.device.gpu_number()},
           {"uuid", g.device.uuid},
           {"parent_uuid", g.device.parent_uuid},
           {"mig_profile", g.device.mig_profile},
           {"host", g.device.host},
           {"name", g.device.name},
           {"source", std::string(core::to_string(g.source))},
           {"samples", g.samples},
           {"start_ns", g.start_ns},
           {"end_ns", g.end_ns},
           {"duration_s", seconds(g.end_ns - g.start_ns)},
           {"sampled_s", seconds(g.sampled_ns)}};
  put_figures(out, g.figures);
  out["attainable_compute_sol_pct"] = wire::number_or_null(g.attainable_compute_sol_pct);
  out["attainable_memory_sol_pct"] = wire::number_or_null(g.attainable_memory_sol_pct);
  out["compute_headroom_pct"] = wire::number_or_null(g.compute_headroom_pct);
  out["memory_headroom_pct"] = wire::number_or_null(g.memory_headroom_pct);
  out["bound_s"] = bound_seconds(g.bound_ns);
  out["min_phase_s"] = seconds(g.min_phase_ns);
  Json phases = Json::array();
  for (const auto& p : g.phases) phases.push_back(phase_json(p, g.start_ns));
  out["phases"] = std::move(phases);
  Json top = Json::array();
  for (const auto& k : g.top_kernels) top.push_back(kernel_json(k));
  out["kernels"] = Json{{"calls", g.kernel_calls},
                        {"names", g.kernel_names},
                        {"total_s", seconds(g.kernel_total_ns)},
                        {"top", std::move(top)}};
  return out;
}

auto text_or_null(const std::string& text) -> Json {
  return text.empty() ? Json(nullptr) : Json(text);
}

auto workload_json(const WorkloadReport& w) -> Json {
  return Json{{"workload", workload_label(w.id)},
              {"pod", text_or_null(w.id.pod)},
              {"namespace", text_or_null(w.id.pod_namespace)},
              {"container", text_or_null(w.id.container)},
              {"hpc_job", text_or_null(w.id.hpc_job)},
              {"user", text_or_null(w.id.user)},
              {"sharing", std::string(core::to_string(w.sharing))},
              {"gpus", w.devices},
              {"gpu_s", w.gpu_s},
              {"compute_sol_pct", wire::number_or_null(w.compute_sol_pct)},
              {"memory_sol_pct", wire::number_or_null(w.memory_sol_pct)},
              {"energy_j", wire::number_or_null(w.energy_j)},
              {"idle_s", w.idle_s}};
}

}  // namespace

auto to_json(const Report& report) -> nlohmann::ordered_json {
  Json out{{"report_version", kReportJsonVersion}};
  out["trace"] = Json{
      {"path", report.trace.path},
      {"synthetic", report.trace.synthetic},
      {"source_description", report.trace.source_description},
      {"host", report.trace.host},
      {"tool_version", report.trace.tool_version},
      {"kernel_log", report.trace.kernel_log.empty() ? Json(nullptr) : Json(report.trace.kernel_log)},
      {"kernels_dropped", report.trace.kernels_dropped},
      {"workload_refresh", report.trace.workload_refresh},
      {"command", report.trace.command.empty() ? Json(nullptr) : Json(report.trace.command)},
      {"exit_status", report.trace.exit_status.empty() ? Json(nullptr) : Json(report.trace.exit_status)}};
  out["phase_method"] = Json{{"name", "bound-class runs, shortest merged first"},
                             {"min_phase_s", seconds(kMinPhaseNs)},
                             {"min_phase_share_pct", kMinPhaseShare * core::kPercent}};
  out["samples"] = report.samples;
  out["kernel_calls"] = report.kernel_calls;
  Json gpus = Json::array();
  for (const auto& g : report.gpus) gpus.push_back(gpu_json(g));
  out["gpus"] = std::move(gpus);
  // null: the trace says nothing about workloads (schema 1-4, or no refresh fed its table); [] none found.
  const bool known =
      report.workloads_recorded && (report.trace.workload_refresh || !report.workloads.empty());
  Json workloads = known ? Json::array() : Json(nullptr);
  for (const auto& w : report.workloads) workloads.push_back(workload_json(w));
  out["workloads"] = std::move(workloads);
  out["training_steps"] = training_steps_json(report.training_steps);
  return out;
}

}  // namespace solscope::report
