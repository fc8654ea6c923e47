// Pieces the views share: labels, roles and one-line summaries of a GPU's figures, the chart and process
// areas. Internal to the tui layer.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/iteration.hpp"
#include "core/live_state.hpp"
#include "tui/detail/frame.hpp"
#include "tui/detail/layout.hpp"
#include "tui/detail/model.hpp"
#include "tui/detail/ui_state.hpp"
#include "tui/detail/workload_rollup.hpp"

namespace solscope::tui::detail {

/// "PM sampling", "GPM", "NVML only", "replay", "no source".
[[nodiscard]] auto source_label(core::SourceKind source) -> std::string;
[[nodiscard]] auto source_role(core::SourceKind source) -> Role;
/// Why PM sampling of the GPU is paused in the shown window (that of its latest sample); kNone when it runs
/// or before any sample.
[[nodiscard]] auto shown_pause(const core::DeviceSnapshot& d) -> core::PmPauseReason;
/// The source whose figures are shown: while PM sampling is paused, the one that stands in for it (the
/// window's source: GPM on Hopper and newer, else NVML); otherwise the source chosen at start.
[[nodiscard]] auto shown_source(const core::DeviceSnapshot& d) -> core::SourceKind;
/// "PM paused (profiler)" (the reason's core::to_string name); empty for kNone.
[[nodiscard]] auto pause_label(core::PmPauseReason reason) -> std::string;
/// "compute-bound", "memory-bound", "latency-bound", "idle", "bound n/a".
[[nodiscard]] auto bound_label(core::Bound bound) -> std::string;
[[nodiscard]] auto bound_role(core::Bound bound) -> Role;
/// The window the panels show (the newest 1-s window), or null before any sample.
[[nodiscard]] auto shown_window(const core::DeviceSnapshot& d) -> const core::SolSample*;
/// A metric of a window; NaN when `w` is null.
[[nodiscard]] auto metric_of(const core::SolSample* w, core::MetricId id) -> double;
/// "64.2% tensor" / "n/a": Compute SOL and its pipe; Memory SOL and its path.
[[nodiscard]] auto compute_text(const core::SolSample* w) -> std::string;
[[nodiscard]] auto memory_text(const core::SolSample* w) -> std::string;
/// "GPU 0 NVIDIA H100 80GB HBM3", "GPU 0 · MIG 3g.40gb #1 NVIDIA H100 80GB HBM3" (core::device_label, then
/// the name; "unknown GPU" when empty).
[[nodiscard]] auto device_heading(const core::DeviceSnapshot& d) -> std::string;
/// "SM 1755 MHz  power 512/700 W  62 °C  mem 61.2/80.0 GiB" (ascii: "C" without the degree sign).
[[nodiscard]] auto state_line(const core::DeviceSnapshot& d, bool ascii) -> std::string;
/// "SM active 88.1%  occupancy 41.2%  GR active 97.0%  bound: compute-bound".
[[nodiscard]] auto activity_line(const core::SolSample* w) -> std::string;
/// "attainable compute 41.0% (+12.3 pts), memory 80.1% (+5.0 pts), limited by memory bandwidth": the
/// ceiling's figures, the gap to the live figure in points (core::attainable_gap; left out while the live
/// figure is unknown) and what limits the ceiling (left out when unknown); empty when the window has no
/// attainable figure.
[[nodiscard]] auto attainable_line(const core::SolSample* w) -> std::string;
/// The panel's note: lost GPU, why SOL is n/a, the source's reason and fix, or the workload note; and its
/// role. Empty text when there is nothing to say.
[[nodiscard]] auto note_of(const core::DeviceSnapshot& d) -> std::pair<std::string, Role>;
/// Memory used and total in bytes (metrics, else DeviceInfo's total); NaN when unknown.
[[nodiscard]] auto memory_used_total(const core::DeviceSnapshot& d) -> std::pair<double, double>;

/// "iteration 125.0 ms  jitter 3.2 ms  compute 74.0%  communication 30.0%  exposed 18.0%  confidence 0.91"
/// (compute = the share the SMs work, IterationEstimate::compute_ratio: the compute, memory and latency
/// parts; communication and exposed = the ratios of core::IterationEstimate); not periodic: "iteration not
/// periodic (no repeat found)  confidence 0.31" (the note and the confidence left out when empty or unknown).
[[nodiscard]] auto iteration_line(const core::IterationEstimate& it) -> std::string;
/// The strip's cells in at most `width` cells: all kIterationStripBins bins when they fit, else `width`
/// cells, cell i showing bin i x kIterationStripBins / width. Empty when not periodic or `width` <= 0.
[[nodiscard]] auto strip_cells(const core::IterationEstimate& it, int width)
    -> std::vector<core::IterationPart>;
/// The strip row: " one iteration ", the cells (strip_cells of the width left), then the legend entries that
/// fit whole ("█ compute  ▓ memory  ▒ communication  ░ latency  · idle"). Nothing when not periodic.
void draw_iteration_strip(const core::IterationEstimate& it, int row, const Rect& area, Frame& frame);

/// The three history charts (Compute SOL, Memory SOL, classic utilization) of the selected GPU.
void draw_charts(const ScreenModel& model, const UiState& ui, const Layout& layout, Frame& frame);
/// The process table: the selected GPU's processes in Detail, every GPU's otherwise.
void draw_processes(const ScreenModel& model, const UiState& ui, const Rect& area, Frame& frame);
/// Header (source, SYNTHETIC, time, playback) and footer (keys).
void draw_header(const ScreenModel& model, const UiState& ui, const Rect& area, Frame& frame);
void draw_footer(const ScreenModel& model, const UiState& ui, const Rect& area, Frame& frame);
/// The help overlay, centred on the screen.
void draw_help(const ScreenModel& model, Frame& frame);

/// A panel's title row: "▶ GPU 0 NVIDIA ..." left, "compute-bound · PM sampling" right; while PM sampling is
/// paused, "compute-bound · GPM · PM paused (profiler)" (shown_source, pause_label).
void draw_panel_title(const core::DeviceSnapshot& d, bool selected, int row, const Rect& area, Frame& frame);
/// SOL view: full panel (height >= kFullPanelHeight), two-row or one-row compact entry.
void draw_sol_panel(const core::DeviceSnapshot& d, bool selected, const Rect& area, Frame& frame);
/// Classic and DCGM tables: column titles and one row per GPU.
void draw_table_header(View view, const Rect& area, Frame& frame);
void draw_table_row(View view, const core::DeviceSnapshot& d, bool selected, const Rect& area, Frame& frame);
/// Workloads view: one row per workload (the first ones that fit, then "+N more"), or a line saying none
/// is known; the column titles come from draw_table_header(View::Workloads, ...).
void draw_workloads(const std::vector<WorkloadRollupRow>& rows, const Rect& area, Frame& frame);
/// Detail view of one GPU: device facts and notes, its iteration line and strip, every pipe and path,
/// activity and interconnect.
void draw_detail(const core::DeviceSnapshot& d, const Rect& area, Frame& frame);

}  // namespace solscope::tui::detail
