// The Detail view of one GPU: every compute pipe and memory path, activity and interconnect figures, the
// device's facts, its source and notes, and its training iteration (view_iteration.cpp).
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <string>

#include "core/device_info.hpp"
#include "core/metric_catalog.hpp"
#include "tui/detail/view_parts.hpp"
#include "tui/detail/widgets.hpp"
#include "tui/format.hpp"

namespace solscope::tui::detail {
namespace {

constexpr int kLabelWidth = 16;
constexpr int kValueWidth = 24;

auto facts_line(const core::DeviceInfo& info) -> std::string {
  std::string out = info.uuid.empty() ? "uuid n/a" : info.uuid;
  if (!info.parent_uuid.empty()) out += "  on " + info.parent_uuid;
  if (!info.pci_bus_id.empty()) out += "  bus " + info.pci_bus_id;
  if (!info.chip.empty()) out += "  chip " + info.chip;
  if (info.sm_count > 0) out += "  " + std::to_string(info.sm_count) + " SMs";
  out += "  max SM clock " + format_value(info.max_sm_clock_mhz, 0, "MHz");
  out += "  DRAM peak " + format_rate(info.dram_peak_bytes_per_s);
  return out;
}

auto pct_line(const std::string& label, double pct, Role role, bool busiest, const char* what) -> BarLine {
  std::string value = format_pct(pct);
  if (busiest) value += std::string("  sets ") + what;
  return BarLine{.label = label,
                 .label_width = kLabelWidth,
                 .pct = pct,
                 .marker_pct = std::nan(""),
                 .role = role,
                 .value = value,
                 .value_width = kValueWidth,
                 .value_role = busiest ? Role::Title : Role::Normal};
}

/// The rows of one SOL figure's parts: every compute pipe (Part = core::Pipe) or memory path (core::MemPath),
/// the busiest of which sets the figure.
template <class Part, std::size_t kCount>
struct PartRows {
  const char* title;
  std::array<double, kCount> core::SolSample::*pcts;
  Part core::SolSample::*busiest;
  Role role;
  const char* figure;
};

constexpr PartRows<core::Pipe, core::kPipeCount> kPipeRows{
    "Compute pipes (Compute SOL = the busiest)", &core::SolSample::pipe_pct, &core::SolSample::compute_pipe,
    Role::BarCompute, "Compute SOL"};
constexpr PartRows<core::MemPath, core::kMemPathCount> kPathRows{
    "Memory paths (Memory SOL = the busiest)", &core::SolSample::path_pct, &core::SolSample::memory_path,
    Role::BarMemory, "Memory SOL"};

/// The title and one row per part from `row`; returns the next free row.
template <class Part, std::size_t kCount>
auto draw_parts(const PartRows<Part, kCount>& parts, const core::SolSample* w, int row, int col, int width,
                Frame& frame) -> int {
  frame.put(row++, col, parts.title, Role::Title, width);
  for (std::size_t i = 0; i < kCount; ++i) {
    const auto part = static_cast<Part>(i);
    const double pct = w == nullptr ? std::nan("") : (w->*parts.pcts)[i];
    const bool busiest = w != nullptr && w->*parts.busiest == part;
    draw_bar_line(
        frame, row++, col, width,
        pct_line(fmt::format(" {}", core::to_string(part)), pct, parts.role, busiest, parts.figure));
  }
  return row;
}

auto interconnect_line(const core::SolSample* w) -> std::string {
  return " PCIe read " + format_rate(metric_of(w, core::MetricId::PcieReadBytesPerS)) + "  write " +
         format_rate(metric_of(w, core::MetricId::PcieWriteBytesPerS)) + "   NVLink rx " +
         format_rate(metric_of(w, core::MetricId::NvlinkRxBytesPerS)) + "  tx " +
         format_rate(metric_of(w, core::MetricId::NvlinkTxBytesPerS));
}

/// Classic utilization, copy-engine utilization and interconnect; returns the next free row.
auto draw_activity(const core::SolSample* w, int row, int col, int width, Frame& frame) -> int {
  frame.put(row++, col, "Classic utilization and interconnect", Role::Title, width);
  draw_bar_line(frame, row++, col, width,
                pct_line(" GPU util (smi)", metric_of(w, core::MetricId::GpuUtil), Role::BarUtil, false, ""));
  draw_bar_line(frame, row++, col, width,
                pct_line(" copy util", metric_of(w, core::MetricId::MemCopyUtil), Role::BarUtil, false, ""));
  frame.put(row++, col, interconnect_line(w), Role::Normal, width);
  return row;
}

}  // namespace

void draw_detail(const core::DeviceSnapshot& d, const Rect& area, Frame& frame) {
  const core::SolSample* w = shown_window(d);
  int row = area.row;
  draw_panel_title(d, true, row++, area, frame);
  frame.put(row++, area.col, fmt::format(" {}", facts_line(d.state.info)), Role::Dim, area.width);
  frame.put(row++, area.col, fmt::format(" {}", state_line(d, frame.ascii())), Role::Normal, area.width);
  frame.put(row++, area.col, fmt::format(" {}", activity_line(w)), Role::Normal, area.width);
  const auto [note, role] = note_of(d);
  const std::string pause = pause_label(shown_pause(d));
  const std::string source = " source: " + source_label(shown_source(d)) +
                             (pause.empty() ? "" : ", " + pause) + (note.empty() ? "" : " - " + note);
  frame.put(row++, area.col, source, role == Role::Normal ? Role::Dim : role, area.width);
  const std::string workload = d.state.workload_note.empty() ? "n/a" : d.state.workload_note;
  frame.put(row++, area.col, " workload: " + workload, Role::Dim, area.width);
  const std::string attainable = attainable_line(w);
  frame.put(row++, area.col, " " + (attainable.empty() ? "attainable: n/a" : attainable), Role::Normal,
            area.width);
  frame.put(row++, area.col, " " + iteration_line(d.iteration),
            d.iteration.periodic ? Role::Normal : Role::Dim, area.width);
  draw_iteration_strip(d.iteration, row++, area, frame);
  if (area.width >= kDetailWideCols) {
    const int half = area.width / 2;
    draw_parts(kPipeRows, w, row, area.col, half - 1, frame);
    const int next = draw_parts(kPathRows, w, row, area.col + half, area.width - half, frame);
    draw_activity(w, next, area.col + half, area.width - half, frame);
  } else {
    const int next = draw_parts(kPathRows, w, draw_parts(kPipeRows, w, row, area.col, area.width, frame),
                                area.col, area.width, frame);
    frame.put(next, area.col, interconnect_line(w), Role::Normal, area.width);
  }
}

}  // namespace solscope::tui::detail
