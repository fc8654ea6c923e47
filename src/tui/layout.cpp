#include "tui/detail/layout.hpp"

#include <algorithm>

#include "core/enum_table.hpp"

namespace solscope::tui {
namespace {

/// Nine rows of facts, notes and the iteration (line and strip), then the pipes and paths.
constexpr int kDetailHeightWide = 20;    ///< pipes and paths side by side (>= kDetailWideCols columns)
constexpr int kDetailHeightNarrow = 25;  ///< pipes above paths

/// The first visible position so that `selected` is among `visible` of `count`.
auto first_visible(std::size_t count, std::size_t visible, std::size_t selected) -> std::size_t {
  if (visible == 0 || count <= visible) return 0;
  const std::size_t sel = std::min(selected, count - 1);
  return sel < visible ? 0 : sel - visible + 1;
}

/// Places the charts and the process table in `area` (below the panels).
void place_lower(const Rect& area, const LayoutRequest& req, Layout& layout) {
  int row = area.row;
  int left = area.height;
  if (req.show_charts && left >= kChartMinHeight && area.width >= kChartMinWidth) {
    const bool room_for_processes = req.show_processes && left >= kChartMinHeight + kProcessesMinHeight;
    const int height = std::min(kChartMaxHeight, room_for_processes ? left - kProcessesMinHeight : left);
    const int across = area.width >= 3 * kChartMinWidth + 2 ? 3 : 1;
    const int width = (area.width - (across - 1)) / across;
    for (int i = 0; i < across; ++i) {
      layout.charts.push_back(Rect{row, area.col + i * (width + 1), height, width});
    }
    row += height;
    left -= height;
  }
  if (req.show_processes && left >= kProcessesMinHeight) {
    layout.processes = Rect{row, area.col, left, area.width};
  }
}

/// Full panels in a grid, or compact rows.
void layout_sol(const LayoutRequest& req, Layout& layout) {
  const Rect& body = layout.body;
  const int n = static_cast<int>(req.device_count);
  const int reserve = req.show_charts ? kChartMinHeight : 0;
  // Columns of at least kFullPanelMinWidth with a one-column gap between them.
  const int columns =
      std::clamp((body.width + 1) / (kFullPanelMinWidth + 1), 1, std::min(n, kMaxPanelColumns));
  const int grid_rows = (n + columns - 1) / columns;
  const int grid_height = grid_rows * kFullPanelHeight;
  int used = 0;
  if (body.width >= kFullPanelMinWidth &&
      (grid_height + reserve <= body.height || grid_height == body.height)) {
    const int width = (body.width - (columns - 1)) / columns;
    for (int i = 0; i < n; ++i) {
      layout.panels.push_back(Rect{body.row + (i / columns) * kFullPanelHeight,
                                   body.col + (i % columns) * (width + 1), kFullPanelHeight, width});
    }
    used = grid_rows * kFullPanelHeight;
  } else {
    layout.compact = true;
    const int per_gpu = 2 * n + reserve <= body.height ? 2 : 1;
    const int room = n * per_gpu + reserve <= body.height ? n : body.height / per_gpu;
    const auto visible = static_cast<std::size_t>(std::min(n, room));
    layout.first_device = first_visible(req.device_count, visible, req.selected);
    for (std::size_t i = 0; i < visible; ++i) {
      layout.panels.push_back(Rect{body.row + static_cast<int>(i) * per_gpu, body.col, per_gpu, body.width});
    }
    used = static_cast<int>(visible) * per_gpu;
  }
  place_lower(Rect{body.row + used, body.col, body.height - used, body.width}, req, layout);
}

/// A heading row and one row per GPU (Classic, DCGM).
void layout_table(const LayoutRequest& req, Layout& layout) {
  const Rect& body = layout.body;
  layout.table_header = Rect{body.row, body.col, 1, body.width};
  const int n = static_cast<int>(req.device_count);
  const int rows_left = body.height - 1;
  const int reserve = req.show_charts ? kChartMinHeight : 0;
  const int room = n + reserve <= rows_left ? n : std::min(n, rows_left);
  const auto visible = static_cast<std::size_t>(std::max(room, 0));
  layout.first_device = first_visible(req.device_count, visible, req.selected);
  for (std::size_t i = 0; i < visible; ++i) {
    layout.panels.push_back(Rect{body.row + 1 + static_cast<int>(i), body.col, 1, body.width});
  }
  const int used = 1 + static_cast<int>(visible);
  place_lower(Rect{body.row + used, body.col, body.height - used, body.width}, req, layout);
}

/// One big panel for the selected GPU, then its charts and processes.
void layout_detail(const LayoutRequest& req, Layout& layout) {
  const Rect& body = layout.body;
  const int wanted = body.width >= kDetailWideCols ? kDetailHeightWide : kDetailHeightNarrow;
  const int height = std::min(wanted, body.height);
  layout.first_device = std::min(req.selected, req.device_count - 1);
  layout.panels.push_back(Rect{body.row, body.col, height, body.width});
  place_lower(Rect{body.row + height, body.col, body.height - height, body.width}, req, layout);
}

/// A heading row, the roll-up's rows (room for the process table kept when there is any), the process table.
void layout_workloads(const LayoutRequest& req, Layout& layout) {
  const Rect& body = layout.body;
  layout.table_header = Rect{body.row, body.col, 1, body.width};
  const int rows_left = body.height - 1;
  const int wanted = static_cast<int>(std::min<std::size_t>(std::max<std::size_t>(req.workload_count, 1),
                                                            static_cast<std::size_t>(rows_left)));
  const int spare = rows_left - kProcessesMinHeight;
  const int height = wanted <= spare ? wanted : std::max(std::min(wanted, spare), 1);
  layout.workloads = Rect{body.row + 1, body.col, height, body.width};
  LayoutRequest lower = req;
  lower.show_charts = false;
  const int used = 1 + height;
  place_lower(Rect{body.row + used, body.col, body.height - used, body.width}, lower, layout);
}

}  // namespace

constexpr core::EnumNames<View, 5> kViewNames({"sol", "classic", "dcgm", "detail", "workloads"}, "sol");

auto to_string(View view) -> std::string_view {
  return kViewNames(view);
}

auto compute_layout(const LayoutRequest& request) -> Layout {
  Layout layout;
  const int rows = std::max(request.rows, 0);
  const int cols = std::max(request.cols, 0);
  if (rows < kMinRows || cols < kMinCols) {
    layout.too_small = true;
    layout.header = Rect{0, 0, rows, cols};
    return layout;
  }
  layout.header = Rect{0, 0, 1, cols};
  layout.footer = Rect{rows - 1, 0, 1, cols};
  layout.body = Rect{1, 0, rows - 2, cols};
  if (request.device_count == 0) return layout;
  switch (request.view) {
    case View::Sol:
      layout_sol(request, layout);
      break;
    case View::Classic:
    case View::Dcgm:
      layout_table(request, layout);
      break;
    case View::Detail:
      layout_detail(request, layout);
      break;
    case View::Workloads:
      layout_workloads(request, layout);
      break;
  }
  return layout;
}

}  // namespace solscope::tui
