// Around the GPU entries: header, footer, history charts, process table and the help overlay.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/device_info.hpp"
#include "tui/detail/chart.hpp"
#include "tui/detail/view_parts.hpp"
#include "tui/format.hpp"

namespace solscope::tui::detail {
namespace {

constexpr const char* kHelp[] = {
    "q            quit (Esc too; Esc first leaves Detail and help)",
    "? h F1       this help (any key closes it)",
    "p space      pause: a replay stops its clock; live figures freeze",
    "arrows j k   select a GPU; Home/End: first/last",
    "Enter        detail of the selected GPU (Enter or Esc: back)",
    "1 s  2 c     SOL view; classic view (what nvidia-smi shows)",
    "3 d  4       DCGM-like view (SM active, occupancy); detail view",
    "5 u          workloads: GPUs, sharing, share, SOL (5/u/Esc: back)",
    "v Tab        next view",
    "w W          chart window longer/shorter: 1m 5m 15m 30m 1h",
    "[ ]  { }     replay: seek back/forward 10 s; 60 s",
    "+ -          replay: faster/slower (x2 per press)",
    "a            ASCII bars and charts on/off; Ctrl-L redraws",
    "",
    "Compute SOL: the busiest compute pipe, % of its peak.",
    "Memory SOL: the busiest memory path (DRAM, L2, L1), % of peak.",
    "Util (smi): classic utilization, the share of time a kernel ran.",
    "A mark on a bar: attainable SOL from the ceiling model.",
};

auto position_text(const ScreenModel& model) -> std::string {
  if (model.now_ns == 0) return "waiting for samples";
  return format_utc_time(model.now_ns) + " UTC";
}

void put_series(const ScreenModel& model, std::size_t which, std::vector<ChartPoint>& out) {
  out.clear();
  out.reserve(model.history.size());
  for (const auto& p : model.history) {
    const double v = which == 0 ? p.compute_sol_pct : which == 1 ? p.memory_sol_pct : p.gpu_util_pct;
    out.push_back(ChartPoint{p.t_end_ns, v});
  }
}

}  // namespace

void draw_header(const ScreenModel& model, const UiState& ui, const Rect& area, Frame& frame) {
  frame.fill(area, U' ', Role::Header);
  const std::string sep = frame.ascii() ? " | " : " \u2502 ";
  int x = area.col;
  const auto put = [&](const std::string& text, Role role) {
    x += frame.put(area.row, x, text, role, area.right() - x);
  };
  // Most important first: narrow screens cut the line at the right.
  put(std::string(area.width >= 120 ? " solscope " SOLSCOPE_VERSION : " solscope") + sep +
          model.source.title + " ",
      Role::Header);
  if (model.source.synthetic) put(" SYNTHETIC ", Role::Synthetic);
  if (!model.playback.empty()) put(sep + model.playback, Role::Header);
  if (model.paused) put(sep + "PAUSED", Role::Warn);
  if (!model.status.empty()) put(sep + model.status, Role::Warn);
  put(sep + std::to_string(model.devices.size()) + " GPU" + (model.devices.size() == 1 ? "" : "s") + sep +
          position_text(model),
      Role::Header);
  put(sep + "view " + std::string(to_string(ui.view)), Role::Header);
}

void draw_footer(const ScreenModel& model, const UiState& ui, const Rect& area, Frame& frame) {
  frame.fill(area, U' ', Role::Footer);
  const bool ascii = frame.ascii();
  std::string keys = std::string(" q quit  ? help  p pause  ") +
                     (ascii ? "arrows" : "\u2190\u2191\u2193\u2192") +
                     " select  Enter detail  1-5/v view  w/W chart " + format_span(ui.chart_window_ns());
  if (!model.playback.empty()) keys += "  [ ] seek  +/- speed";
  frame.put(area.row, area.col, keys, Role::Footer, area.width);
}

void draw_charts(const ScreenModel& model, const UiState& ui, const Layout& layout, Frame& frame) {
  if (layout.charts.empty() || model.devices.empty()) return;
  const auto& device = model.devices[std::min(ui.selected, model.devices.size() - 1)];
  static constexpr const char* kTitles[] = {"Compute SOL", "Memory SOL", "Util (smi)"};
  static constexpr Role kRoles[] = {Role::BarCompute, Role::BarMemory, Role::BarUtil};
  const std::string suffix =
      " " + core::device_label(device.state.info) + ", last " + format_span(model.chart_window_ns);
  std::vector<ChartPoint> points;
  for (std::size_t i = 0; i < layout.charts.size() && i < 3; ++i) {
    put_series(model, i, points);
    const ChartSpec spec{.title = std::string(kTitles[i]) + suffix,
                         .role = kRoles[i],
                         .from_ns = model.now_ns - model.chart_window_ns,
                         .to_ns = model.now_ns};
    draw_chart(frame, layout.charts[i], spec, points);
  }
}

void draw_processes(const ScreenModel& model, const UiState& ui, const Rect& area, Frame& frame) {
  if (area.empty()) return;
  char heading[160];
  std::snprintf(heading, sizeof heading, "%-4s %-8s %-12s %9s  %-24s  %-12s  %s", "GPU", "PID", "USER",
                "GPU MEM", "WORKLOAD", "CONTAINER", "COMMAND");
  frame.put(area.row, area.col, heading, Role::Title, area.width);
  if (!model.source.process_note.empty()) {
    frame.put(area.row + 1, area.col, model.source.process_note, Role::Dim, area.width);
    return;
  }
  const bool one = ui.view == View::Detail && !model.devices.empty();
  const std::size_t selected = std::min(ui.selected, model.devices.empty() ? 0 : model.devices.size() - 1);
  std::vector<std::pair<std::uint32_t, const core::GpuProcess*>> rows;
  for (std::size_t i = 0; i < model.devices.size(); ++i) {
    if (one && i != selected) continue;
    for (const auto& p : model.devices[i].state.processes)
      rows.emplace_back(model.devices[i].state.info.index, &p);
  }
  if (rows.empty()) {
    frame.put(area.row + 1, area.col, one ? "no process on this GPU" : "no process on the GPUs", Role::Dim,
              area.width);
    return;
  }
  const int room = area.height - 1;
  const bool cut = static_cast<int>(rows.size()) > room;
  const int shown = cut ? room - 1 : static_cast<int>(rows.size());
  for (int i = 0; i < shown; ++i) {
    const auto& [gpu, p] = rows[static_cast<std::size_t>(i)];
    char line[160];
    std::snprintf(line, sizeof line, "%-4u %-8d %-12.12s %5s GiB  %-24.24s  %-12.12s  ", gpu, p->pid,
                  p->user.c_str(), format_gib(static_cast<double>(p->gpu_memory_bytes)).c_str(),
                  p->workload.display().c_str(), p->container_id.c_str());
    frame.put(area.row + 1 + i, area.col, std::string(line) + p->command, Role::Normal, area.width);
  }
  if (cut) {
    frame.put(area.row + room, area.col,
              fmt::format("+{} more", rows.size() - static_cast<std::size_t>(shown)), Role::Dim, area.width);
  }
}

void draw_help(const ScreenModel& model, Frame& frame) {
  const int lines = static_cast<int>(std::size(kHelp)) + 4;
  const Rect box = centered(frame.bounds(), lines, 72);
  frame.fill(box, U' ', Role::Normal);
  const bool ascii = frame.ascii();
  for (int c = box.col; c < box.right(); ++c) {
    frame.set(box.row, c, ascii ? U'-' : U'\u2500', Role::Title);
    frame.set(box.bottom() - 1, c, ascii ? U'-' : U'\u2500', Role::Title);
  }
  for (int r = box.row; r < box.bottom(); ++r) {
    frame.set(r, box.col, ascii ? U'|' : U'\u2502', Role::Title);
    frame.set(r, box.right() - 1, ascii ? U'|' : U'\u2502', Role::Title);
  }
  frame.put(box.row, box.col + 2, " keys of the solscope view ", Role::Title, box.width - 4);
  int row = box.row + 1;
  for (const char* line : kHelp) frame.put(row++, box.col + 2, line, Role::Normal, box.width - 4);
  frame.put(row + 1, box.col + 2,
            "colours: " + model.color_mode + " (NO_COLOR, or SOLSCOPE_COLORS=256|16|mono)", Role::Dim,
            box.width - 4);
}

}  // namespace solscope::tui::detail
