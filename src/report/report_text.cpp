#include "report/report_text.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/device_info.hpp"
#include "core/text.hpp"
#include "report/detail/phase_detection.hpp"
#include "report/detail/text_fit.hpp"
#include "report/detail/training_steps_present.hpp"
#include "report/detail/workload_totals.hpp"

namespace solscope::report {
namespace {

using detail::fit;

constexpr std::size_t kNameWidth = 34;

auto seconds(std::int64_t ns) -> double {
  return static_cast<double>(ns) / static_cast<double>(core::kNsPerS);
}

auto pct(double v) -> std::string {
  return std::isnan(v) ? std::string("n/a") : fmt::format("{:.1f} %", v);
}

/// Percentage points (a difference of two percentages).
auto points(double v) -> std::string {
  return std::isnan(v) ? std::string("n/a") : fmt::format("{:.1f} points", v);
}

auto sol(double v, std::string_view unit_name) -> std::string {
  if (std::isnan(v)) return "n/a";
  return fmt::format("{:5.1f} % {}", v, unit_name);
}

auto pipe_name(core::Pipe pipe) -> std::string_view {
  return pipe == core::Pipe::kCount ? std::string_view{} : core::to_string(pipe);
}

auto path_name(core::MemPath path) -> std::string_view {
  return path == core::MemPath::kCount ? std::string_view{} : core::to_string(path);
}

void write_figures(std::string& out, const GpuReport& g) {
  const Figures& f = g.figures;
  fmt::format_to(std::back_inserter(out), "  {:<13} {:<22} {:<13} {}\n", "Compute SOL",
                 sol(f.compute_sol_pct, pipe_name(f.compute_pipe)), "Memory SOL",
                 sol(f.memory_sol_pct, path_name(f.memory_path)));
  fmt::format_to(std::back_inserter(out), "  {:<13} {:<22} {:<13} {}\n", "utilization", pct(f.gpu_util_pct),
                 "SM active", pct(f.sm_active_pct));
  if (std::isnan(g.attainable_compute_sol_pct) && std::isnan(g.attainable_memory_sol_pct)) {
    out += "  attainable    n/a (no workload known: see README, \"Attainable SOL and workloads\")\n";
  } else {
    fmt::format_to(std::back_inserter(out), "  {:<13} compute {} (headroom {}), memory {} (headroom {})\n",
                   "attainable", pct(g.attainable_compute_sol_pct), points(g.compute_headroom_pct),
                   pct(g.attainable_memory_sol_pct), points(g.memory_headroom_pct));
  }
  if (std::isnan(f.energy_j)) {
    out += "  energy        n/a (no power figures)\n";
  } else {
    const double known_pct =
        g.sampled_ns > 0 ? core::kPercent * seconds(f.power_known_ns) / seconds(g.sampled_ns) : 0.0;
    fmt::format_to(std::back_inserter(out),
                   "  {:<13} {:<22} {:<13} {:.1f} W (power known {:.0f} % of the time)\n", "energy",
                   fmt::format("{:.1f} J", f.energy_j), "mean power", f.mean_power_w, known_pct);
  }
  out += "  bound time   ";
  for (std::size_t i = 0; i < kBoundOrder.size(); ++i) {
    const double share =
        g.sampled_ns > 0 ? core::kPercent * seconds(g.bound_ns[i]) / seconds(g.sampled_ns) : 0.0;
    fmt::format_to(std::back_inserter(out), " {} {:.1f} %", core::to_string(kBoundOrder[i]), share);
  }
  out += "\n";
}

/// The phases to list: all, or the kTextPhases longest in time order.
auto shown_phases(const std::vector<Phase>& phases) -> std::vector<const Phase*> {
  std::vector<const Phase*> shown;
  shown.reserve(phases.size());
  for (const auto& p : phases) shown.push_back(&p);
  if (shown.size() <= kTextPhases) return shown;
  std::stable_sort(shown.begin(), shown.end(),
                   [](const Phase* a, const Phase* b) { return a->sampled_ns > b->sampled_ns; });
  shown.resize(kTextPhases);
  std::sort(shown.begin(), shown.end(),
            [](const Phase* a, const Phase* b) { return a->start_ns < b->start_ns; });
  return shown;
}

void write_phases(std::string& out, const GpuReport& g) {
  if (g.phases.empty()) return;
  fmt::format_to(std::back_inserter(out), "  phases ({}, at least {:.1f} s each):\n", g.phases.size(),
                 seconds(g.min_phase_ns));
  fmt::format_to(std::back_inserter(out), "    {:>8} {:>8}  {:<8} {:<15} {:<14} {:>7} {:>9} {:>8}\n",
                 "start s", "length s", "bound", "compute SOL", "memory SOL", "util", "SM active", "power W");
  for (const Phase* p : shown_phases(g.phases)) {
    const Figures& f = p->figures;
    fmt::format_to(std::back_inserter(out), "    {:>8.1f} {:>8.1f}  {:<8} {:<15} {:<14} {:>7} {:>9} {:>8}\n",
                   seconds(p->start_ns - g.start_ns), seconds(p->end_ns - p->start_ns),
                   core::to_string(p->bound), sol(f.compute_sol_pct, pipe_name(f.compute_pipe)),
                   sol(f.memory_sol_pct, path_name(f.memory_path)), pct(f.gpu_util_pct), pct(f.sm_active_pct),
                   std::isnan(f.mean_power_w) ? std::string("n/a") : fmt::format("{:.1f}", f.mean_power_w));
  }
  if (g.phases.size() > kTextPhases) {
    fmt::format_to(std::back_inserter(out), "    ({} more phases not listed: see --json)\n",
                   g.phases.size() - kTextPhases);
  }
}

void write_kernels(std::string& out, const GpuReport& g, bool has_table) {
  if (g.kernel_calls == 0) {
    out += has_table ? "  kernels: none recorded on this GPU\n"
                     : "  kernels: not in this trace (`solscope run` records them)\n";
    return;
  }
  fmt::format_to(std::back_inserter(out),
                 "  kernels: {} calls of {} kernels, {:.3f} s of GPU time; top {} by time:\n", g.kernel_calls,
                 g.kernel_names, seconds(g.kernel_total_ns), g.top_kernels.size());
  fmt::format_to(std::back_inserter(out), "    {:<{}} {:>7} {:>9} {:>6} {:<15} {:<13} {}\n", "kernel",
                 kNameWidth, "calls", "time s", "share", "compute SOL", "memory SOL", "ovl");
  for (const auto& k : g.top_kernels) {
    fmt::format_to(std::back_inserter(out), "    {:<{}} {:>7} {:>9.4f} {:>5.1f}% {:<15} {:<13} {}\n",
                   fit(k.name, kNameWidth), kNameWidth, k.calls, seconds(k.total_ns), k.time_share_pct,
                   sol(k.compute_sol_pct, pipe_name(k.compute_pipe)),
                   sol(k.memory_sol_pct, path_name(k.memory_path)), k.overlapped() ? "yes" : "no");
  }
  out += "    (SOL: sample-overlap-weighted mean while the kernel ran; ovl: other kernels ran beside it)\n";
}

void write_gpu(std::string& out, const GpuReport& g, bool has_table) {
  const std::string name = g.device.name.empty() ? std::string("(name unknown)") : g.device.name;
  fmt::format_to(std::back_inserter(out), "\n{}  {}  source {}\n", core::device_label(g.device),
                 fit(name, 60), core::to_string(g.source));
  if (!g.device.host.empty())
    fmt::format_to(std::back_inserter(out), "  {:<13} {}\n", "host", fit(g.device.host, 60));
  if (g.samples == 0) {
    out += "  no samples\n";
  } else {
    fmt::format_to(std::back_inserter(out), "  {:<13} {:.1f} s ({} samples, {:.1f} s sampled)\n", "time",
                   seconds(g.end_ns - g.start_ns), g.samples, seconds(g.sampled_ns));
    write_figures(out, g);
    write_phases(out, g);
  }
  write_kernels(out, g, has_table);
}

constexpr std::size_t kWorkloadWidth = 28;

auto number_or_na(double v) -> std::string {
  return std::isnan(v) ? std::string("n/a") : fmt::format("{:.1f}", v);
}

auto gpu_list(const std::vector<std::uint32_t>& devices) -> std::string {
  std::string out;
  for (const std::uint32_t d : devices) out += (out.empty() ? "" : ",") + std::to_string(d);
  return out;
}

void write_workloads(std::string& out, const Report& report) {
  if (!report.workloads_recorded) {
    out += "\nWorkloads: not in this trace (recorded before trace schema 5)\n";
    return;
  }
  if (!report.trace.workload_refresh && report.workloads.empty()) {
    out +=
        "\nWorkloads: not recorded (no process list while recording: a replay, an import or a remote "
        "source)\n";
    return;
  }
  if (report.workloads.empty()) {
    out += "\nWorkloads: none seen while recording (no process or allocation found on the GPUs)\n";
    return;
  }
  out += "\nWorkloads (docs/report.md \"Workloads\"):\n";
  fmt::format_to(std::back_inserter(out), "  {:<{}} {:<11} {:<5} {:>8} {:>9} {:>8} {:>9} {:>7}\n", "workload",
                 kWorkloadWidth, "sharing", "GPUs", "GPU s", "compute", "memory", "energy J", "idle s");
  for (const WorkloadReport& w : report.workloads) {
    fmt::format_to(std::back_inserter(out), "  {:<{}} {:<11} {:<5} {:>8.1f} {:>9} {:>8} {:>9} {:>7.1f}\n",
                   fit(workload_label(w.id), kWorkloadWidth), kWorkloadWidth, core::to_string(w.sharing),
                   fit(gpu_list(w.devices), 5), w.gpu_s, pct(w.compute_sol_pct), pct(w.memory_sol_pct),
                   number_or_na(w.energy_j), w.idle_s);
  }
  out +=
      "  (GPU s: seconds it held a GPU, x its SM share when time-sliced; compute, memory: mean SOL then;\n"
      "   idle s: of those, the seconds the GPU was idle)\n";
}

/// The first sample's start over every GPU; without samples, the first iteration's start (0 without any).
auto trace_origin_ns(const Report& report) -> std::int64_t {
  std::optional<std::int64_t> origin;
  for (const auto& g : report.gpus) {
    if (g.samples > 0) origin = std::min(origin.value_or(g.start_ns), g.start_ns);
  }
  for (const auto& g : report.training_steps.gpus) {
    if (!origin && !g.iterations.empty()) origin = g.iterations.front().start_ns;
  }
  return origin.value_or(0);
}

}  // namespace

auto render_text(const Report& report) -> std::string {
  std::string out;
  fmt::format_to(std::back_inserter(out), "solscope report: {}\n", fit(report.trace.path, kTextWidth - 17));
  if (report.trace.synthetic) {
    fmt::format_to(std::back_inserter(out), "SYNTHETIC trace, not measured: {}\n",
                   fit(report.trace.source_description, kTextWidth - 31));
  }
  if (!report.trace.command.empty()) {
    const std::string ended = report.trace.exit_status.empty() ? "" : " (" + report.trace.exit_status + ")";
    fmt::format_to(std::back_inserter(out), "command: {}{}\n",
                   fit(report.trace.command, kTextWidth - 9 - ended.size()), ended);
  }
  fmt::format_to(std::back_inserter(out), "{} GPUs, {} samples, {} kernel calls\n", report.gpus.size(),
                 report.samples, report.kernel_calls);
  if (report.trace.kernels_dropped > 0) {
    fmt::format_to(std::back_inserter(out),
                   "{} kernel records were lost while recording (not listed below)\n",
                   report.trace.kernels_dropped);
  }
  for (const auto& g : report.gpus) write_gpu(out, g, !report.trace.kernel_log.empty());
  write_workloads(out, report);
  write_training_steps(out, report.training_steps, trace_origin_ns(report));
  return out;
}

}  // namespace solscope::report
