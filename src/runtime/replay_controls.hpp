// Replay controls of the terminal view: pause, speed and seek of a source with a playback clock (a trace
// replay: CounterSource::playback()), applied on the engine thread (BackgroundEngine::post), the only thread
// that may touch the source.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "core/live_state.hpp"
#include "runtime/live_feed.hpp"
#include "sources/counter_source.hpp"
#include "tui/controls.hpp"

namespace solscope::app {

/// A played-back source for the terminal view: forwards to a source with a playback clock, but is never
/// finished(): at the end of the recording it waits, so that the user can seek back; at_end() tells. Not
/// thread-safe (the engine thread drives it), except at_end().
class AdjustableReplaySource final : public sources::CounterSource {
 public:
  /// `started` is an opened and started source whose playback() is not null (app::open_replay_source).
  explicit AdjustableReplaySource(std::unique_ptr<sources::CounterSource> started);

  [[nodiscard]] auto devices() const -> std::vector<core::DeviceInfo> override { return inner_->devices(); }
  /// Already started: a no-op.
  [[nodiscard]] auto start(const sources::SourceConfig& config) -> core::Result<void> override;
  [[nodiscard]] auto poll() -> core::Result<std::vector<core::RawSample>> override;
  [[nodiscard]] auto finished() const -> bool override { return false; }
  void stop() override { inner_->stop(); }
  [[nodiscard]] auto status(std::uint32_t device) const -> sources::DeviceStatus override {
    return inner_->status(device);
  }

  /// The inner source's playback clock (never null).
  [[nodiscard]] auto playback() -> sources::PlaybackControl* override { return playback_; }
  /// True once every sample of the trace was returned. Thread-safe.
  [[nodiscard]] auto at_end() const -> bool { return at_end_.load(); }

 private:
  std::unique_ptr<sources::CounterSource> inner_;
  sources::PlaybackControl* playback_;
  std::atomic<bool> at_end_{false};
};

/// tui::PlaybackControls over an AdjustableReplaySource run by a BackgroundEngine. The position shown is the
/// newest sample in `state` (the trace time playing). Speeds go in steps of x2 from 1/8 to 64. Seeking clears
/// the LiveState's figures (the view then shows the trace from the new position) and resumes playback.
class ReplayControls final : public tui::PlaybackControls {
 public:
  /// `first_ns`/`last_ns`: the trace's first sample start and last sample end.
  ReplayControls(BackgroundEngine& engine, AdjustableReplaySource& source, core::LiveState& state,
                 std::int64_t first_ns, std::int64_t last_ns, double speed);

  void set_paused(bool paused) override;
  [[nodiscard]] auto paused() const -> bool override { return paused_.load(); }
  void change_speed(int steps) override;
  void seek_by(std::int64_t delta_ns) override;
  /// "0:12/5:00 x1": position, length and speed ("max speed" for speed 0; "end of trace" added once it played
  /// out).
  [[nodiscard]] auto status_text() const -> std::string override;

 private:
  BackgroundEngine& engine_;
  AdjustableReplaySource& source_;
  core::LiveState& state_;
  std::int64_t first_ns_;
  std::int64_t last_ns_;
  std::atomic<double> speed_;
  std::atomic<bool> paused_{false};
};

}  // namespace solscope::app
