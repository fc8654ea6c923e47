#include "tui/fleet_tui.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "tui/detail/fleet_view.hpp"
#include "tui/detail/terminal.hpp"
#include "tui/tui.hpp"

namespace solscope::tui {
namespace {

constexpr int kKeyPollMs = 200;

auto unix_now_ns() -> std::int64_t {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// Timing figures of one run (SOLSCOPE_TUI_STATS).
struct FleetStats {
  std::int64_t fetches = 0;
  std::int64_t fetch_ns = 0;
  std::int64_t frames = 0;
  std::int64_t render_ns = 0;
  std::int64_t present_ns = 0;
  void write(const std::string& path) const {
    if (path.empty()) return;
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) return;
    const auto mean_us = [](std::int64_t ns, std::int64_t n) {
      return static_cast<double>(ns) / static_cast<double>(std::max<std::int64_t>(n, 1)) / 1e3;
    };
    std::fprintf(f,
                 "fetches %lld\nfetch_us_mean %.1f\nframes %lld\nrender_us_mean %.1f\npresent_us_mean %.1f\n",
                 static_cast<long long>(fetches), mean_us(fetch_ns, fetches), static_cast<long long>(frames),
                 mean_us(render_ns, frames), mean_us(present_ns, frames));
    std::fclose(f);
  }
};

class FleetSession {
 public:
  FleetSession(fleet::FleetProvider& provider, const FleetTuiOptions& options, Terminal& term)
      : provider_(provider), options_(options), term_(term) {
    state_.ascii = options.ascii || !term.utf8();
    data_.source = provider.describe();
    data_.refresh_ns = options.refresh_ns;
  }

  void fetch() {
    const std::int64_t t0 = steady_now_ns();
    auto snap = provider_.snapshot();
    if (snap) {
      data_.snapshot = std::move(*snap);
      data_.error.clear();
      data_.refreshed_unix_ns = unix_now_ns();
      apply_view(data_, state_, table_rows());
      if (state_.detail) fetch_history();
    } else {
      data_.error = snap.error().describe();
    }
    stats_.fetch_ns += steady_now_ns() - t0;
    ++stats_.fetches;
    next_fetch_ns_ = steady_now_ns() + options_.refresh_ns;
  }

  void fetch_history() {
    const fleet::FleetRow* row = selected_row(data_, state_);
    if (row == nullptr) return;
    auto h = provider_.history(row->key);
    if (h) {
      data_.history = std::move(*h);
    } else {
      data_.error = h.error().describe();
    }
  }

  /// False when the user quits.
  auto on_key(const Key& key) -> bool {
    if (key.code == KeyCode::Resize) {
      term_.invalidate();
      apply_view(data_, state_, table_rows());
      return true;
    }
    switch (fleet_key(key, state_, data_, table_rows())) {
      case FleetAction::Quit:
        return false;
      case FleetAction::OpenHistory:
        draw();  // "loading history..." while the query runs
        fetch_history();
        break;
      case FleetAction::Refresh:
        fetch();
        break;
      case FleetAction::None:
        break;
    }
    return true;
  }

  void draw() {
    const std::int64_t t0 = steady_now_ns();
    Frame frame(term_.rows(), term_.cols(), state_.ascii);
    render_fleet(data_, state_, frame);
    const std::int64_t t1 = steady_now_ns();
    term_.present(frame);
    stats_.render_ns += t1 - t0;
    stats_.present_ns += steady_now_ns() - t1;
    ++stats_.frames;
  }

  auto run(const std::atomic<bool>& stop) -> void {
    fetch();
    draw();
    while (!stop.load()) {
      const std::int64_t wait_ns = next_fetch_ns_ - steady_now_ns();
      const int timeout_ms = static_cast<int>(std::clamp<std::int64_t>(wait_ns / 1'000'000, 0, kKeyPollMs));
      auto key = term_.read_key(timeout_ms);
      bool dirty = false;
      if (key) {
        if (!on_key(*key)) break;
        dirty = true;
      }
      if (steady_now_ns() >= next_fetch_ns_) {
        fetch();
        dirty = true;
      }
      if (dirty) draw();
    }
    stats_.write(options_.stats_path);
  }

 private:
  [[nodiscard]] auto table_rows() const -> int { return fleet_table_rows(term_.rows()); }

  fleet::FleetProvider& provider_;
  const FleetTuiOptions& options_;
  Terminal& term_;
  FleetViewState state_;
  FleetViewData data_;
  FleetStats stats_;
  std::int64_t next_fetch_ns_ = 0;
};

}  // namespace

auto run_fleet_tui(fleet::FleetProvider& provider, const FleetTuiOptions& options,
                   const std::atomic<bool>& stop) -> core::Result<void> {
  TerminalOptions topts;
  topts.term = options.term;
  topts.no_color = options.no_color;
  topts.colors = options.colors;
  auto term = Terminal::open(topts);
  if (!term) return core::propagate(term);
  FleetSession session(provider, options, **term);
  session.run(stop);
  (*term)->close();
  return core::ok();
}

}  // namespace solscope::tui
