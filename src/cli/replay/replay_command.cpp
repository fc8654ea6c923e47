// `solscope replay FILE [--json] [--speed X]`: a trace through the live view, or as JSON Lines.
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/live/tui_session.hpp"
#include "core/units.hpp"
#include "runtime/engine_loop.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/messages.hpp"
#include "runtime/sinks.hpp"
#include "runtime/source_factory.hpp"
#include "runtime/text_view.hpp"

namespace solscope::app {

auto run_replay(const CommonOptions& common, const ReplayArgs& args, std::ostream& out, std::ostream& err)
    -> int {
  const std::int64_t started_ns = tui::steady_now_ns();
  auto config = source_config_from(common);
  if (!config) {
    print_error(err, config.error());
    return kExitUsage;
  }
  // JSON Lines are for scripts: as fast as possible unless a speed is given; the view plays in real time.
  const double speed = args.speed >= 0.0 ? args.speed : (common.json ? 0.0 : 1.0);
  auto opened = open_replay_source(args.file, *config, speed, args.loop);
  if (!opened) {
    print_error(err, opened.error().error);
    return opened.error().exit_code;
  }
  const EngineOptions options{.poll_interval_ns = poll_interval_for(config->interval_ns),
                              .pace = opened->paced};
  if (want_terminal_view(common.json)) {
    const TerminalViewOptions view{
        .title = "replay of " + std::filesystem::path(args.file).filename().string(),
        .engine = options,
        .attainable = nullptr,
        .replay_path = args.file,
        .speed = speed,
        .started_steady_ns = started_ns};
    const int code = run_terminal_view(*opened, view, err);
    const int read = report_replay_end(*opened, err);
    return code != kExitOk ? code : read;
  }
  if (!common.json) print_note(err, "playing " + opened->description);
  JsonLinesSink json(out);
  TextViewSink text(out, core::kNsPerS, "# solscope " SOLSCOPE_VERSION ": " + opened->description);
  SampleSink* sink = common.json ? static_cast<SampleSink*>(&json) : &text;
  const int code = run_engine(*opened->source, {sink}, options, err);
  const int read = report_replay_end(*opened, err);  // samples read and skipped, where the damage begins
  return code != kExitOk ? code : read;
}

}  // namespace solscope::app
