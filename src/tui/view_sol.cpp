// The SOL view's GPU entries: full panels, and compact two-row and one-row entries.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tui/detail/view_parts.hpp"
#include "tui/detail/widgets.hpp"
#include "tui/format.hpp"

namespace solscope::tui::detail {
namespace {

constexpr int kLabelWidth = 13;  ///< " Compute SOL "
constexpr int kValueWidth = 18;  ///< "100.0% fma_heavy" plus room

}  // namespace

void draw_panel_title(const core::DeviceSnapshot& d, bool selected, int row, const Rect& area, Frame& frame) {
  const bool ascii = frame.ascii();
  const core::SolSample* w = shown_window(d);
  const core::SourceKind shown = shown_source(d);
  const std::string source = source_label(shown);
  const std::string pause = pause_label(shown_pause(d));
  const std::string bound = bound_label(w == nullptr ? core::Bound::Unknown : w->bound);
  const std::string separator = ascii ? " | " : " \u00B7 ";
  const int pause_width = pause.empty() ? 0 : 3 + text_width(pause);
  const int right_width = text_width(bound) + 3 + text_width(source) + pause_width;
  const int left_width = std::max(area.width - right_width - 1, 10);
  const std::string mark = selected ? (ascii ? "> " : "\u25B6 ") : "  ";
  frame.put(row, area.col, pad_right(mark + device_heading(d), left_width, ascii),
            selected ? Role::Selected : Role::Title, left_width);
  int x = area.col + left_width + 1;
  const int end = area.right();
  x += frame.put(row, x, bound, bound_role(w == nullptr ? core::Bound::Unknown : w->bound), end - x);
  x += frame.put(row, x, separator, Role::Dim, end - x);
  x += frame.put(row, x, source, d.state.lost ? Role::Bad : source_role(shown), end - x);
  if (pause.empty()) return;
  x += frame.put(row, x, separator, Role::Dim, end - x);
  frame.put(row, x, pause, Role::Warn, end - x);
}

namespace {

/// One SOL bar: its figure and the attainable marker (SolSample fields), its colour and its value text.
struct SolBar {
  double core::SolSample::*pct;
  double core::SolSample::*attainable_pct;
  Role role;
  std::string (*text)(const core::SolSample*);
};

constexpr SolBar kComputeBar{&core::SolSample::compute_sol_pct, &core::SolSample::attainable_compute_sol_pct,
                             Role::BarCompute, compute_text};
constexpr SolBar kMemoryBar{&core::SolSample::memory_sol_pct, &core::SolSample::attainable_memory_sol_pct,
                            Role::BarMemory, memory_text};

auto sol_line(const SolBar& bar, const core::SolSample* w, const std::string& label, int label_width,
              int value_width) -> BarLine {
  return BarLine{.label = label,
                 .label_width = label_width,
                 .pct = w == nullptr ? std::nan("") : w->*bar.pct,
                 .marker_pct = w == nullptr ? std::nan("") : w->*bar.attainable_pct,
                 .role = bar.role,
                 .value = bar.text(w),
                 .value_width = value_width,
                 .value_role = Role::Normal};
}

auto util_line(const core::SolSample* w, const std::string& label, int label_width, int value_width)
    -> BarLine {
  const double util = metric_of(w, core::MetricId::GpuUtil);
  return BarLine{.label = label,
                 .label_width = label_width,
                 .pct = util,
                 .marker_pct = std::nan(""),
                 .role = Role::BarUtil,
                 .value = format_pct(util),
                 .value_width = value_width,
                 .value_role = Role::Dim};
}

/// "  attainable compute 41.0% (+12.3 pts), memory ..." (attainable_line) after the state line; else empty.
auto attainable_text(const core::SolSample* w) -> std::string {
  const std::string line = attainable_line(w);
  return line.empty() ? line : "  " + line;
}

void draw_full(const core::DeviceSnapshot& d, bool selected, const Rect& area, Frame& frame) {
  const core::SolSample* w = shown_window(d);
  const int r = area.row;
  draw_panel_title(d, selected, r, area, frame);
  draw_bar_line(frame, r + 1, area.col, area.width,
                sol_line(kComputeBar, w, " Compute SOL", kLabelWidth, kValueWidth));
  draw_bar_line(frame, r + 2, area.col, area.width,
                sol_line(kMemoryBar, w, " Memory SOL", kLabelWidth, kValueWidth));
  draw_bar_line(frame, r + 3, area.col, area.width, util_line(w, " Util (smi)", kLabelWidth, kValueWidth));
  frame.put(r + 4, area.col, fmt::format(" {}", activity_line(w)), Role::Normal, area.width);
  frame.put(r + 5, area.col, fmt::format(" {}{}", state_line(d, frame.ascii()), attainable_text(w)),
            Role::Normal, area.width);
  const auto [note, role] = note_of(d);
  frame.put(r + 6, area.col, fmt::format(" {}", fit(note, area.width - 1, frame.ascii())), role, area.width);
}

/// Three bar groups (compute, memory, classic utilization) side by side in one row from `col`; the two SOL
/// groups get two fifths of the width each.
void draw_bar_groups(const core::SolSample* w, int row, int col, int width, Frame& frame) {
  const int util_width = std::max(14, width / 5);
  const int group = (width - util_width) / 2;
  const int value_width = group >= 34 ? 17 : 13;
  draw_bar_line(frame, row, col, group - 1, sol_line(kComputeBar, w, "C ", 2, value_width));
  draw_bar_line(frame, row, col + group, group - 1, sol_line(kMemoryBar, w, "M ", 2, value_width));
  draw_bar_line(frame, row, col + 2 * group, width - 2 * group, util_line(w, "U ", 2, 6));
}

}  // namespace

void draw_sol_panel(const core::DeviceSnapshot& d, bool selected, const Rect& area, Frame& frame) {
  if (area.height >= kFullPanelHeight) {
    draw_full(d, selected, area, frame);
  } else if (area.height >= 2) {
    draw_panel_title(d, selected, area.row, area, frame);
    draw_bar_groups(shown_window(d), area.row + 1, area.col + 2, area.width - 2, frame);
  } else {
    const bool ascii = frame.ascii();
    const int name_width = std::min(22, area.width / 4);
    const std::string mark = selected ? (ascii ? ">" : "\u25B6") : " ";
    frame.put(area.row, area.col, pad_right(mark + device_heading(d), name_width, ascii),
              selected ? Role::Selected : Role::Title, name_width);
    draw_bar_groups(shown_window(d), area.row, area.col + name_width + 1, area.width - name_width - 1, frame);
  }
}

}  // namespace solscope::tui::detail
