// The views of the terminal view drawn into a Frame: a pure function of the frame's data, the user's choices
// and the layout.
#pragma once

#include "tui/detail/frame.hpp"
#include "tui/detail/layout.hpp"
#include "tui/detail/model.hpp"
#include "tui/detail/ui_state.hpp"

namespace solscope::tui {

/// The LayoutRequest of a frame: its size, the model's GPU count and the user's view and selection.
[[nodiscard]] auto layout_request(const ScreenModel& model, const UiState& ui, int rows, int cols)
    -> LayoutRequest;

/// Draws a whole screen into `frame` (cleared first): header, the view's GPU entries, charts, processes,
/// footer, and the help overlay when shown. A screen below kMinRows x kMinCols gets one "too small" message.
void render(const ScreenModel& model, const UiState& ui, const Layout& layout, Frame& frame);

/// Number of GPU panels side by side in `layout` (1 for rows and tables).
[[nodiscard]] auto panel_columns(const Layout& layout) -> int;

}  // namespace solscope::tui
