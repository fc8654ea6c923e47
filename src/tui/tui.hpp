// The terminal view's entry point: runs the live view of a LiveState on the terminal until the user quits or
// a stop is requested, redrawing at most 10 times a second and only when something changed.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "core/live_state.hpp"
#include "core/result.hpp"
#include "tui/controls.hpp"
#include "tui/detail/model.hpp"

namespace solscope::tui {

/// steady_clock's time in ns: the clock of TuiOptions::started_steady_ns.
[[nodiscard]] auto steady_now_ns() -> std::int64_t;

/// How run_tui() runs.
struct TuiOptions {
  SourceInfo source;           ///< title, SYNTHETIC, process note
  int frames_per_second = 10;  ///< most redraws per second (1..60)
  /// The feed's state, polled once per frame: "" while it runs normally, else a short phrase for the header
  /// ("replay finished", "sampling stopped: ..."). May be empty.
  std::function<std::string()> feed_status;
  std::string term;      ///< $TERM as read by the caller (the terminal type curses starts with)
  std::string no_color;  ///< $NO_COLOR
  std::string colors;    ///< $SOLSCOPE_COLORS
  bool ascii = false;    ///< $SOLSCOPE_ASCII set: ASCII bars and charts from the start
  /// When not empty, timing figures are written there at exit (first frame, frames, mean render and present
  /// time), for bench/tui_cpu.sh. From $SOLSCOPE_TUI_STATS.
  std::string stats_path;
  /// steady_clock time (ns) the command started, for the time to the first frame; 0 = when run_tui starts.
  std::int64_t started_steady_ns = 0;
};

/// Shows `state` on the terminal (stdin/stdout) until q/Esc, or `stop` becomes true (SIGINT, SIGTERM, SIGHUP
/// set it). `controls` (may be null) drives a replay's pause/speed/seek; without it, pause freezes the shown
/// figures. The terminal is restored on every return. Errors: those of Terminal::open (no usable terminal).
[[nodiscard]] auto run_tui(const core::LiveState& state, const TuiOptions& options,
                           PlaybackControls* controls, const std::atomic<bool>& stop) -> core::Result<void>;

}  // namespace solscope::tui
