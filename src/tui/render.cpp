#include <string>

#include "tui/detail/view_parts.hpp"
#include "tui/detail/views.hpp"
#include "tui/detail/workload_rollup.hpp"

namespace solscope::tui {

auto layout_request(const ScreenModel& model, const UiState& ui, int rows, int cols) -> LayoutRequest {
  return LayoutRequest{
      .rows = rows,
      .cols = cols,
      .device_count = model.devices.size(),
      .view = ui.view,
      .selected = ui.selected,
      .show_charts = true,
      .show_processes = true,
      .workload_count = ui.view == View::Workloads ? workload_rollup(model.devices).size() : 0};
}

auto panel_columns(const Layout& layout) -> int {
  int columns = 0;
  for (const auto& p : layout.panels) {
    if (p.row == layout.panels.front().row) ++columns;
  }
  return columns == 0 ? 1 : columns;
}

void render(const ScreenModel& model, const UiState& ui, const Layout& layout, Frame& frame) {
  frame.clear();
  if (layout.too_small) {
    frame.put(0, 0,
              "terminal too small: solscope needs at least " + std::to_string(kMinCols) + "x" +
                  std::to_string(kMinRows),
              Role::Warn);
    return;
  }
  if (layout.table_header.height > 0) detail::draw_table_header(ui.view, layout.table_header, frame);
  for (std::size_t i = 0; i < layout.panels.size(); ++i) {
    const std::size_t position = layout.first_device + i;
    if (position >= model.devices.size()) break;
    const auto& device = model.devices[position];
    const bool selected = position == ui.selected;
    switch (ui.view) {
      case View::Sol:
        detail::draw_sol_panel(device, selected, layout.panels[i], frame);
        break;
      case View::Classic:
      case View::Dcgm:
        detail::draw_table_row(ui.view, device, selected, layout.panels[i], frame);
        break;
      case View::Detail:
        detail::draw_detail(device, layout.panels[i], frame);
        break;
      case View::Workloads:  // no GPU panels: the roll-up below
        break;
    }
  }
  if (ui.view == View::Workloads && !layout.workloads.empty()) {
    detail::draw_workloads(workload_rollup(model.devices), layout.workloads, frame);
  }
  if (model.devices.empty() && !layout.body.empty()) {
    frame.put(layout.body.row + 1, 2, "waiting for the GPU list from the source...", Role::Dim);
  }
  detail::draw_charts(model, ui, layout, frame);
  detail::draw_processes(model, ui, layout.processes, frame);
  detail::draw_header(model, ui, layout.header, frame);
  detail::draw_footer(model, ui, layout.footer, frame);
  if (ui.help) detail::draw_help(model, frame);
}

}  // namespace solscope::tui
