// ScreenModel: everything one frame shows, copied out of the LiveState (and the playback controls) once per
// redraw, so that drawing is a pure function of plain data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/live_state.hpp"
#include "tui/detail/ui_state.hpp"

namespace solscope::tui {

/// What the view says about where its figures come from; set once by the app.
struct SourceInfo {
  std::string title;  ///< e.g. "NVIDIA GPUs", "replay of run.sqlite", "bundled trace (no NVIDIA GPU here)"
  bool synthetic = false;    ///< a trace not recorded on a GPU: the header says SYNTHETIC
  std::string process_note;  ///< replaces the process table when processes are unknown (e.g. a trace)
};

/// One frame's data.
struct ScreenModel {
  SourceInfo source;
  std::vector<core::DeviceSnapshot> devices;  ///< index order
  std::vector<core::HistoryPoint> history;    ///< the selected GPU's chart points, oldest first
  std::int64_t now_ns = 0;                    ///< newest sample end (sample clock); 0 before any sample
  std::int64_t chart_window_ns = kChartWindowsNs[0];
  std::string playback;    ///< replay status (PlaybackControls::status_text), empty for live GPUs
  std::string status;      ///< the feed's state when it is not running normally ("replay finished"), or empty
  bool paused = false;     ///< replay paused or live figures frozen
  std::string color_mode;  ///< "256", "16" or "mono", for the help overlay
};

/// Copies the LiveState's devices and newest sample time into `model`, then its history (capture_history);
/// other fields are left as they are. Thread-safe with respect to the feeding thread (LiveState locks).
void capture(const core::LiveState& state, std::size_t selected, std::int64_t merge, ScreenModel& model);

/// Replaces `model.history` with the history of the GPU at position `selected` (clamped) of `model.devices`
/// over `model.chart_window_ns` before `model.now_ns`, merged `merge` windows per point; empty without
/// devices. Points newer than `now_ns` (figures frozen while the state moved on) are kept: the chart ignores
/// points outside its window.
void capture_history(const core::LiveState& state, std::size_t selected, std::int64_t merge,
                     ScreenModel& model);

}  // namespace solscope::tui
