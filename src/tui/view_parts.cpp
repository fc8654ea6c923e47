#include <fmt/format.h>

#include <cmath>

#include "core/attainable_gap.hpp"
#include "core/device_info.hpp"
#include "core/limiter.hpp"
#include "core/metric_catalog.hpp"
#include "core/pm_yield.hpp"
#include "tui/detail/view_parts.hpp"
#include "tui/format.hpp"

namespace solscope::tui::detail {

auto source_label(core::SourceKind source) -> std::string {
  switch (source) {
    case core::SourceKind::PmSampling:
      return "PM sampling";
    case core::SourceKind::Gpm:
      return "GPM";
    case core::SourceKind::NvmlOnly:
      return "NVML only";
    case core::SourceKind::Replay:
      return "replay";
    case core::SourceKind::Dcgm:
      return "DCGM";
    case core::SourceKind::Nsys:
      return "Nsight Systems";
    case core::SourceKind::None:
      break;
  }
  return "no source";
}

auto source_role(core::SourceKind source) -> Role {
  switch (source) {
    case core::SourceKind::PmSampling:
      return Role::Good;
    case core::SourceKind::Gpm:
    case core::SourceKind::NvmlOnly:
    case core::SourceKind::Dcgm:
    case core::SourceKind::Nsys:
      return Role::Warn;
    case core::SourceKind::Replay:
      return Role::Dim;
    case core::SourceKind::None:
      break;
  }
  return Role::Bad;
}

auto shown_pause(const core::DeviceSnapshot& d) -> core::PmPauseReason {
  const core::SolSample* w = shown_window(d);
  return w == nullptr ? core::PmPauseReason::kNone : w->pm_pause;
}

auto shown_source(const core::DeviceSnapshot& d) -> core::SourceKind {
  const core::SolSample* w = shown_window(d);
  const bool stood_in =
      w != nullptr && w->pm_pause != core::PmPauseReason::kNone && w->source != core::SourceKind::None;
  return stood_in ? w->source : d.state.source;
}

auto pause_label(core::PmPauseReason reason) -> std::string {
  if (reason == core::PmPauseReason::kNone) return {};
  return "PM paused (" + std::string(core::to_string(reason)) + ")";
}

auto bound_label(core::Bound bound) -> std::string {
  switch (bound) {
    case core::Bound::Compute:
    case core::Bound::Memory:
    case core::Bound::Latency:
      return std::string(core::to_string(bound)) + "-bound";
    case core::Bound::Idle:
      return "idle";
    case core::Bound::Unknown:
      break;
  }
  return "bound n/a";
}

auto bound_role(core::Bound bound) -> Role {
  switch (bound) {
    case core::Bound::Compute:
      return Role::BarCompute;
    case core::Bound::Memory:
      return Role::BarMemory;
    case core::Bound::Latency:
      return Role::Warn;
    case core::Bound::Idle:
    case core::Bound::Unknown:
      break;
  }
  return Role::Dim;
}

auto shown_window(const core::DeviceSnapshot& d) -> const core::SolSample* {
  return d.latest_window ? &*d.latest_window : nullptr;
}

auto metric_of(const core::SolSample* w, core::MetricId id) -> double {
  return w == nullptr ? std::nan("") : w->metric(id);
}

auto compute_text(const core::SolSample* w) -> std::string {
  if (w == nullptr || std::isnan(w->compute_sol_pct)) return "n/a";
  const std::string pipe = w->compute_pipe == core::Pipe::kCount
                               ? std::string()
                               : fmt::format(" {}", core::to_string(w->compute_pipe));
  return format_pct(w->compute_sol_pct) + pipe;
}

auto memory_text(const core::SolSample* w) -> std::string {
  if (w == nullptr || std::isnan(w->memory_sol_pct)) return "n/a";
  const std::string path = w->memory_path == core::MemPath::kCount
                               ? std::string()
                               : fmt::format(" {}", core::to_string(w->memory_path));
  return format_pct(w->memory_sol_pct) + path;
}

auto device_heading(const core::DeviceSnapshot& d) -> std::string {
  const std::string& name = d.state.info.name;
  return core::device_label(d.state.info) + " " + (name.empty() ? "unknown GPU" : name);
}

auto memory_used_total(const core::DeviceSnapshot& d) -> std::pair<double, double> {
  const core::SolSample* w = shown_window(d);
  double total = metric_of(w, core::MetricId::MemoryTotalBytes);
  if (std::isnan(total) && d.state.info.memory_total_bytes > 0) {
    total = static_cast<double>(d.state.info.memory_total_bytes);
  }
  return {metric_of(w, core::MetricId::MemoryUsedBytes), total};
}

auto state_line(const core::DeviceSnapshot& d, bool ascii) -> std::string {
  const core::SolSample* w = shown_window(d);
  const double power = metric_of(w, core::MetricId::PowerW);
  const double limit = metric_of(w, core::MetricId::PowerLimitW);
  const auto [used, total] = memory_used_total(d);
  return "SM " + format_value(metric_of(w, core::MetricId::SmClockMhz), 0, "MHz") + "  power " +
         format_number(power, 0) + "/" + format_value(limit, 0, "W") + "  temp " +
         format_value(metric_of(w, core::MetricId::TemperatureC), 0, ascii ? "C" : "\u00B0C") + "  mem " +
         format_gib(used) + "/" + format_gib(total) + " GiB";
}

auto activity_line(const core::SolSample* w) -> std::string {
  return "SM active " + format_pct(metric_of(w, core::MetricId::SmActive)) + "  occupancy " +
         format_pct(metric_of(w, core::MetricId::SmOccupancy)) + "  GR active " +
         format_pct(metric_of(w, core::MetricId::GrActive)) + "  " +
         bound_label(w == nullptr ? core::Bound::Unknown : w->bound);
}

auto attainable_line(const core::SolSample* w) -> std::string {
  if (w == nullptr) return {};
  if (std::isnan(w->attainable_compute_sol_pct) && std::isnan(w->attainable_memory_sol_pct)) return {};
  const core::AttainableGap gap = core::attainable_gap(*w);
  const auto gap_text = [](double pts) {
    return std::isnan(pts) ? std::string() : fmt::format(" ({:+.1f} pts)", pts);
  };
  std::string text = "attainable compute " + format_pct(w->attainable_compute_sol_pct) +
                     gap_text(gap.compute_pts) + ", memory " + format_pct(w->attainable_memory_sol_pct) +
                     gap_text(gap.memory_pts);
  if (w->attainable_limiter != core::Limiter::kCount) {
    text += ", limited by " + std::string(core::limiter_text(w->attainable_limiter));
  }
  return text;
}

auto note_of(const core::DeviceSnapshot& d) -> std::pair<std::string, Role> {
  if (d.state.lost) return {"GPU lost: it stopped answering (fell off the bus or a driver reset)", Role::Bad};
  const core::SolSample* w = shown_window(d);
  const bool sol_na = w != nullptr && std::isnan(w->compute_sol_pct) && std::isnan(w->memory_sol_pct);
  if (sol_na) {
    const std::string why = !d.state.source_note.empty() ? d.state.source_note
                            : d.state.source == core::SourceKind::NvmlOnly
                                ? "NVML only gives the classic utilization, no pipe or path counters"
                                : "no pipe or path counters in these samples";
    return {"SOL n/a: " + why, Role::Bad};
  }
  if (!d.state.source_note.empty()) return {d.state.source_note, Role::Warn};
  if (!d.state.workload_note.empty()) return {d.state.workload_note, Role::Dim};
  if (w == nullptr) return {"waiting for the first sample", Role::Dim};
  return {};
}

}  // namespace solscope::tui::detail
