// PlaybackControls: what the terminal view may ask of a replay (pause, speed, seek). Implemented by the app
// (app/replay_controls.hpp) over the engine thread; the view only calls it from its own thread.
#pragma once

#include <cstdint>
#include <string>

namespace solscope::tui {

/// Controls of a replay. Calls return at once; the effect reaches the figures within one engine poll.
class PlaybackControls {
 public:
  virtual ~PlaybackControls() = default;
  /// Stops (true) or restarts (false) the replay clock.
  virtual void set_paused(bool paused) = 0;
  [[nodiscard]] virtual auto paused() const -> bool = 0;
  /// Doubles (steps > 0) or halves (steps < 0) the speed per step, within the app's bounds.
  virtual void change_speed(int steps) = 0;
  /// Moves the replay by `delta_ns` of trace time (negative: back), clamped to the trace.
  virtual void seek_by(std::int64_t delta_ns) = 0;
  /// One short line for the header: position, length and speed, e.g. "0:12/5:00 x2".
  [[nodiscard]] virtual auto status_text() const -> std::string = 0;
};

}  // namespace solscope::tui
