#include <algorithm>
#include <chrono>
#include <cstdio>

#include "core/units.hpp"
#include "tui/detail/chart.hpp"
#include "tui/detail/terminal.hpp"
#include "tui/detail/views.hpp"
#include "tui/tui.hpp"

namespace solscope::tui {

auto steady_now_ns() -> std::int64_t {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

/// Timing figures of one run (SOLSCOPE_TUI_STATS).
struct Stats {
  std::int64_t started_ns = 0;
  std::int64_t first_frame_ns = 0;  ///< after the first present()
  std::int64_t first_data_ns = 0;   ///< after the first present() showing a sample
  std::int64_t frames = 0;
  std::int64_t draw_ns = 0;     ///< capture + layout + render
  std::int64_t present_ns = 0;  ///< curses output
  void write(const std::string& path) const {
    if (path.empty()) return;
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) return;
    const double n = static_cast<double>(std::max<std::int64_t>(frames, 1));
    std::fprintf(f,
                 "first_frame_ms %.2f\nfirst_data_frame_ms %.2f\nframes %lld\ndraw_us_mean %.1f\n"
                 "present_us_mean %.1f\n",
                 static_cast<double>(first_frame_ns - started_ns) / static_cast<double>(core::kNsPerMs),
                 first_data_ns == 0
                     ? -1.0
                     : static_cast<double>(first_data_ns - started_ns) / static_cast<double>(core::kNsPerMs),
                 static_cast<long long>(frames), static_cast<double>(draw_ns) / n / 1e3,
                 static_cast<double>(present_ns) / n / 1e3);
    std::fclose(f);
  }
};

/// The main loop's state between frames.
class Session {
 public:
  Session(const core::LiveState& state, const TuiOptions& options, PlaybackControls* controls, Terminal& term)
      : state_(state), options_(options), controls_(controls), term_(term) {
    ui_.ascii = options.ascii || !term.utf8();
    model_.source = options.source;
    model_.color_mode = std::string(to_string(term.color_mode()));
  }

  /// Handles one key; false when the user quits.
  auto on_key(const Key& key) -> bool {
    const Layout layout = compute_layout(layout_request(model_, ui_, term_.rows(), term_.cols()));
    const Command cmd = apply(ui_, map_key(key), model_.devices.size(), panel_columns(layout));
    if (!term_.utf8()) ui_.ascii = true;
    switch (cmd.kind) {
      case Command::Kind::Quit:
        return false;
      case Command::Kind::TogglePause:
        if (controls_ != nullptr) {
          controls_->set_paused(!controls_->paused());
        } else {
          ui_.frozen = !ui_.frozen;
        }
        break;
      case Command::Kind::Speed:
        if (controls_ != nullptr) controls_->change_speed(cmd.speed_steps);
        break;
      case Command::Kind::Seek:
        if (controls_ != nullptr) controls_->seek_by(cmd.seek_ns);
        break;
      case Command::Kind::Redraw:
        if (key.code == KeyCode::Char && key.ch == 0x0C) term_.invalidate();
        break;
      case Command::Kind::None:
        return true;  // nothing changed: no redraw
    }
    dirty_ = true;
    return true;
  }

  /// Redraws when the UI, the playback line, the wall-clock second or the figures shown changed. The panels
  /// and charts show complete windows of the LiveState, so new samples matter once the newest sample enters
  /// another window (other changes, e.g. processes, show at the next wall-clock second at the latest).
  void frame_if_needed(Stats& stats) {
    const std::uint64_t version = state_.version();
    const std::int64_t newest_window = state_.newest_ns() / state_.options().window_ns;
    const std::string playback = controls_ != nullptr ? controls_->status_text() : std::string();
    const std::string status = options_.feed_status ? options_.feed_status() : std::string();
    const std::int64_t second = steady_now_ns() / core::kNsPerS;
    const bool figures = version != version_ && (newest_window != newest_window_ || version_ == 0);
    const bool changed = dirty_ || (!ui_.frozen && figures) || playback != model_.playback ||
                         status != model_.status || second != second_;
    if (!changed) return;
    const std::int64_t t0 = steady_now_ns();
    model_.playback = playback;
    model_.status = status;
    model_.paused = controls_ != nullptr ? controls_->paused() : ui_.frozen;
    model_.chart_window_ns = ui_.chart_window_ns();
    const int rows = term_.rows();
    const int cols = term_.cols();
    refresh_model(version, newest_window, rows, cols);
    ui_.selected = std::min(ui_.selected, model_.devices.empty() ? 0 : model_.devices.size() - 1);
    const Layout layout = compute_layout(layout_request(model_, ui_, rows, cols));
    if (frame_.rows() != rows || frame_.cols() != cols || frame_.ascii() != ui_.ascii) {
      frame_ = Frame(rows, cols, ui_.ascii);
    }
    render(model_, ui_, layout, frame_);
    const std::int64_t t1 = steady_now_ns();
    term_.present(frame_);
    const std::int64_t t2 = steady_now_ns();
    stats.draw_ns += t1 - t0;
    stats.present_ns += t2 - t1;
    ++stats.frames;
    if (stats.first_frame_ns == 0) stats.first_frame_ns = t2;
    if (stats.first_data_ns == 0 && model_.now_ns != 0) stats.first_data_ns = t2;
    dirty_ = false;
    second_ = second;
  }

 private:
  /// What the model's history was captured for: the selected GPU, the chart window and points merged.
  struct HistoryKey {
    std::size_t selected = 0;
    std::size_t window = 0;
    std::int64_t merge = 0;
    auto operator==(const HistoryKey&) const -> bool = default;
  };

  /// Copies the LiveState into the model when it changed since the last copy (not while the figures are
  /// frozen), and the history alone when only the selected GPU or the chart window changed, so that a frozen
  /// view charts the GPU and window it names.
  void refresh_model(std::uint64_t version, std::int64_t newest_window, int rows, int cols) {
    const Layout before = compute_layout(layout_request(model_, ui_, rows, cols));
    const int chart_width = before.charts.empty() ? cols : before.charts.front().width;
    const HistoryKey key{ui_.selected, ui_.window,
                         chart_merge_for(model_.chart_window_ns, state_.options().window_ns, chart_width)};
    if (version_ == 0 || (!ui_.frozen && version != version_)) {
      capture(state_, key.selected, key.merge, model_);
      version_ = version;
      newest_window_ = newest_window;
    } else if (key != captured_) {
      capture_history(state_, key.selected, key.merge, model_);
    }
    captured_ = key;
  }

  const core::LiveState& state_;
  const TuiOptions& options_;
  PlaybackControls* controls_;
  Terminal& term_;
  UiState ui_;
  ScreenModel model_;
  Frame frame_{0, 0};
  HistoryKey captured_;
  std::uint64_t version_ = 0;
  std::int64_t newest_window_ = -1;  ///< window index of the newest sample at the last capture
  std::int64_t second_ = -1;
  bool dirty_ = true;
};

}  // namespace

auto run_tui(const core::LiveState& state, const TuiOptions& options, PlaybackControls* controls,
             const std::atomic<bool>& stop) -> core::Result<void> {
  Stats stats;
  stats.started_ns = options.started_steady_ns != 0 ? options.started_steady_ns : steady_now_ns();
  auto term = Terminal::open(
      TerminalOptions{.term = options.term, .no_color = options.no_color, .colors = options.colors});
  if (!term) return core::propagate(std::move(term));
  Session session(state, options, controls, **term);
  const std::int64_t period_ns = core::kNsPerS / std::clamp(options.frames_per_second, 1, 60);
  std::int64_t next_frame_ns = steady_now_ns();
  bool running = true;
  while (running && !stop.load(std::memory_order_relaxed)) {
    const std::int64_t now = steady_now_ns();
    if (now >= next_frame_ns) {
      session.frame_if_needed(stats);
      next_frame_ns = std::max(next_frame_ns + period_ns, now);
    }
    // Rounded up: a wait of 0 would poll the terminal in a busy loop until the frame is due.
    const std::int64_t left_ns = std::max<std::int64_t>(next_frame_ns - steady_now_ns(), 0);
    const auto wait_ms = static_cast<int>((left_ns + core::kNsPerMs - 1) / core::kNsPerMs);
    if (auto key = (*term)->read_key(wait_ms)) running = session.on_key(*key);
  }
  (*term)->close();
  stats.write(options.stats_path);
  return core::ok();
}

}  // namespace solscope::tui
