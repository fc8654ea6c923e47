#include "tui/detail/model.hpp"

#include <algorithm>

namespace solscope::tui {

void capture(const core::LiveState& state, std::size_t selected, std::int64_t merge, ScreenModel& model) {
  model.devices = state.snapshot();
  model.now_ns = state.newest_ns();
  capture_history(state, selected, merge, model);
}

void capture_history(const core::LiveState& state, std::size_t selected, std::int64_t merge,
                     ScreenModel& model) {
  model.history.clear();
  if (model.devices.empty()) return;
  const auto& device = model.devices[std::min(selected, model.devices.size() - 1)];
  model.history = state.history(device.state.info.index, model.now_ns - model.chart_window_ns, merge);
}

}  // namespace solscope::tui
