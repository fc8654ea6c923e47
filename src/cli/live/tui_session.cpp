#include "cli/live/tui_session.hpp"

#include <unistd.h>

#include <chrono>
#include <memory>
#include <string_view>
#include <utility>

#include "runtime/environment.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/live_feed.hpp"
#include "runtime/messages.hpp"
#include "runtime/process_refresh.hpp"
#include "runtime/replay_controls.hpp"
#include "runtime/signals.hpp"
#include "trace/reader.hpp"
#include "tui/tui.hpp"

namespace solscope::app {
namespace {

constexpr const char* kTraceProcessNote =
    "no process information in a trace: processes are shown on live GPUs";

auto env(const char* name) -> std::string {
  return config::env_or_empty(name);
}

/// First sample start and last sample end of a trace (0, 0 when unknown). Opens its own reader: the replay's
/// reader belongs to the engine thread (sources are not thread-safe).
auto trace_span(const std::string& path) -> std::pair<std::int64_t, std::int64_t> {
  auto reader = trace::Reader::open(path);
  if (!reader) return {0, 0};
  auto span = reader->time_span();
  if (!span || !span->has_value()) return {0, 0};
  return **span;
}

/// The header's word on the feed: why it stopped, or nothing while it runs; and why the process refresh
/// stopped, when it did.
auto feed_status(const BackgroundEngine& engine, const ProcessRefresher* refresher) -> std::string {
  std::string refresh = refresher != nullptr ? refresher->status() : std::string();
  if (!engine.done()) return refresh;
  const auto result = engine.result();
  std::string feed = result && !*result ? "stopped: " + result->error().message : "source finished";
  return refresh.empty() ? feed : feed + "; " + refresh;
}

/// Keeps the view's per-GPU source notes and lost marks current: at most once a second, posts a read of the
/// source's status() to the engine thread (the one that drives the source), so that a status that changes
/// while sampling (a dcgm-exporter that stopped answering, a GPU gone from its scrape) reaches the screen.
class StatusRefresh {
 public:
  void tick(BackgroundEngine& engine, core::LiveState& state) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::seconds(1)) return;
    last_ = now;
    engine.post([&state](sources::CounterSource& source) {
      for (auto& d : device_states_of(source)) {
        state.set_source_note(d.info.index, std::move(d.source_note));
        state.set_lost(d.info.index, d.lost);
      }
    });
  }

 private:
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace

auto tui_options_from_env(tui::SourceInfo source, std::int64_t started_steady_ns) -> tui::TuiOptions {
  return tui::TuiOptions{.source = std::move(source),
                         .frames_per_second = 10,
                         .feed_status = {},
                         .term = env("TERM"),
                         .no_color = env("NO_COLOR"),
                         .colors = env("SOLSCOPE_COLORS"),
                         .ascii = !env("SOLSCOPE_ASCII").empty(),
                         .stats_path = env("SOLSCOPE_TUI_STATS"),
                         .started_steady_ns = started_steady_ns};
}

auto want_terminal_view(bool json) -> bool {
  if (json || isatty(STDOUT_FILENO) == 0 || isatty(STDIN_FILENO) == 0) return false;
  const std::string term = env("TERM");
  return !term.empty() && term != "dumb";
}

auto run_terminal_view(OpenedSource& opened, const TerminalViewOptions& options, std::ostream& err) -> int {
  core::LiveState state;
  std::unique_ptr<AdjustableReplaySource> adjustable;
  if (opened.source->playback() != nullptr && !options.replay_path.empty()) {
    adjustable = std::make_unique<AdjustableReplaySource>(std::move(opened.source));
  }
  sources::CounterSource& source = adjustable ? *adjustable : *opened.source;
  LiveStateSink sink(state, source);
  AttainableSol* attainable = options.attainable;
  if (attainable != nullptr) attainable->start();
  const auto& stop = install_stop_signals();
  auto result = [&]() -> core::Result<void> {
    BackgroundEngine engine(source, {&sink}, options.engine, stop,
                            {.annotate = attainable != nullptr ? attainable->annotator() : nullptr,
                             .pm_yield = options.pm_yield});
    std::unique_ptr<ReplayControls> controls;
    std::unique_ptr<ProcessRefresher> refresher;
    if (adjustable) {
      const auto [first, last] = trace_span(options.replay_path);
      controls = std::make_unique<ReplayControls>(engine, *adjustable, state, first, last, options.speed);
    } else if (source.process_lister() != nullptr) {
      std::function<std::string(std::uint32_t)> notes;
      if (attainable != nullptr)
        notes = [attainable](std::uint32_t d) { return attainable->description_of(d); };
      refresher = std::make_unique<ProcessRefresher>(engine, state, std::move(notes), options.refresh);
    }
    tui::TuiOptions view = tui_options_from_env(
        tui::SourceInfo{.title = options.title,
                        .synthetic = opened.synthetic,
                        .process_note = opened.live ? std::string() : std::string(kTraceProcessNote)},
        options.started_steady_ns);
    StatusRefresh status_refresh;
    view.feed_status = [&engine, &refresher, &status_refresh, &state] {
      if (!engine.done()) status_refresh.tick(engine, state);
      return feed_status(engine, refresher.get());
    };
    auto shown = tui::run_tui(state, view, controls.get(), stop);
    const std::string refresh_status = refresher ? refresher->status() : std::string();
    refresher.reset();
    engine.stop();
    err << engine.warnings();
    if (!refresh_status.empty()) print_warning(err, refresh_status);
    if (!shown) return shown;
    if (auto ran = engine.result(); ran && !*ran) return core::propagate(*ran);
    return core::ok();
  }();
  source.stop();
  if (attainable != nullptr) attainable->stop();
  if (!result) {
    print_error(err, result.error());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace solscope::app
