#include "runtime/replay_controls.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "tui/format.hpp"

namespace solscope::app {
namespace {

constexpr double kMinSpeed = 0.125;
constexpr double kMaxSpeed = 64.0;

}  // namespace

AdjustableReplaySource::AdjustableReplaySource(std::unique_ptr<sources::CounterSource> started)
    : inner_(std::move(started)), playback_(inner_->playback()) {}

auto AdjustableReplaySource::start(const sources::SourceConfig& /*config*/) -> core::Result<void> {
  return core::ok();
}

auto AdjustableReplaySource::poll() -> core::Result<std::vector<core::RawSample>> {
  auto batch = inner_->poll();
  at_end_.store(inner_->finished());
  return batch;
}

ReplayControls::ReplayControls(BackgroundEngine& engine, AdjustableReplaySource& source,
                               core::LiveState& state, std::int64_t first_ns, std::int64_t last_ns,
                               double speed)
    : engine_(engine),
      source_(source),
      state_(state),
      first_ns_(first_ns),
      last_ns_(last_ns),
      speed_(speed) {}

void ReplayControls::set_paused(bool paused) {
  paused_.store(paused);
  engine_.post([source = &source_, paused](sources::CounterSource&) {
    if (paused) {
      source->playback()->pause();
    } else {
      source->playback()->resume();
    }
  });
}

void ReplayControls::change_speed(int steps) {
  const double now = speed_.load();
  if (now == 0.0) return;  // as fast as possible stays so
  const double next = std::clamp(now * std::pow(2.0, steps), kMinSpeed, kMaxSpeed);
  if (next == now) return;
  speed_.store(next);
  engine_.post(
      [source = &source_, next](sources::CounterSource&) { (void)source->playback()->set_speed(next); });
}

void ReplayControls::seek_by(std::int64_t delta_ns) {
  const std::int64_t position = std::max(state_.newest_ns(), first_ns_);
  const std::int64_t target = std::clamp(position + delta_ns, first_ns_, std::max(first_ns_, last_ns_ - 1));
  paused_.store(false);
  engine_.post([source = &source_, state = &state_, target](sources::CounterSource&) {
    if (!source->playback()->seek(target)) return;
    source->playback()->resume();
    state->clear_samples();  // the figures of the old position must not mix with the new
  });
}

auto ReplayControls::status_text() const -> std::string {
  const std::int64_t newest = state_.newest_ns();
  const std::string position = newest == 0 ? "-" : tui::format_clock(newest - first_ns_);
  const double speed = speed_.load();
  char speed_text[32];
  if (speed == 0.0) {
    std::snprintf(speed_text, sizeof speed_text, "max speed");
  } else {
    std::snprintf(speed_text, sizeof speed_text, speed >= 1.0 ? "x%.0f" : "x%.3g", speed);
  }
  std::string text = position + "/" + tui::format_clock(last_ns_ - first_ns_) + " " + speed_text;
  if (source_.at_end()) text += " end of trace";
  return text;
}

}  // namespace solscope::app
