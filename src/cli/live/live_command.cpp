// `solscope` / `solscope top` / `solscope --json`: live figures of every GPU (or of a trace with --replay).
#include <filesystem>

#include "attainable/attainable_wiring.hpp"
#include "cli/commands.hpp"
#include "cli/live/tui_session.hpp"
#include "core/units.hpp"
#include "runtime/engine_loop.hpp"
#include "runtime/environment.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/messages.hpp"
#include "runtime/pm_yield_driver.hpp"
#include "runtime/signals.hpp"
#include "runtime/sinks.hpp"
#include "runtime/source_factory.hpp"
#include "runtime/text_view.hpp"

namespace solscope::app {
namespace {

/// Without a GPU (and without --json or --replay) the live view plays the bundled trace instead, saying so.
auto open_live_or_demo(const CommonOptions& common, const sources::SourceConfig& config, std::ostream& err)
    -> Outcome<OpenedSource> {
  if (!common.replay.empty() || !common.dcgm_exporter.empty()) {
    return open_sampling_source(common, config, 1.0, false);
  }
  auto live = open_nvidia_source(config);
  if (live || common.json || live.error().exit_code != kExitNoGpu) return live;
  const std::string demo = find_demo_trace();
  if (demo.empty()) return live;
  print_note(err, "no NVIDIA GPU here (" + live.error().error.message + "): showing the bundled trace " +
                      demo + " instead");
  sources::SourceConfig demo_config = config;
  demo_config.devices.clear();
  return open_replay_source(demo, demo_config, 1.0, true);
}

/// The terminal view's title: the GPUs, the trace, or the bundled trace (`trace`) shown for want of a GPU.
auto view_title(const CommonOptions& common, const OpenedSource& opened, const std::string& trace)
    -> std::string {
  if (opened.live) return opened.description;
  const auto base = std::filesystem::path(trace).filename();
  if (common.replay.empty()) return "no NVIDIA GPU here: showing the bundled trace " + base.string();
  return "replay of " + base.string();
}

}  // namespace

auto run_live(const CommonOptions& common, const WorkloadOptions& workloads, std::ostream& out,
              std::ostream& err) -> int {
  const std::int64_t started_ns = tui::steady_now_ns();
  auto planned = plan_sampling(common, workloads);
  if (!planned) {
    print_error(err, planned.error());
    return kExitUsage;
  }
  const sources::SourceConfig& config = planned->config;
  auto opened = open_live_or_demo(common, config, err);
  if (!opened) {
    print_error(err, opened.error().error);
    return opened.error().exit_code;
  }
  const auto attainable = attainable_for(std::move(planned->attainable), *opened);
  const EngineOptions options{.poll_interval_ns = poll_interval_for(config.interval_ns)};
  if (want_terminal_view(common.json)) {
    const std::string trace =
        opened->live ? std::string() : (common.replay.empty() ? find_demo_trace() : common.replay);
    const TerminalViewOptions view{
        .title = view_title(common, *opened, trace),
        .engine = options,
        .attainable = attainable.get(),
        .replay_path = trace,
        .speed = 1.0,
        .started_steady_ns = started_ns,
        .pm_yield = pm_yield_setup(common.pm_policy, opened->live),
        .refresh = config::workload_refresh_options(workloads, config::process_environment())};
    const int code = run_terminal_view(*opened, view, err);
    const int read = report_replay_end(*opened, err);  // --replay of a damaged trace: what was read
    return code != kExitOk ? code : read;
  }
  JsonLinesSink json(out);
  TextViewSink text(out, core::kNsPerS, "# solscope " SOLSCOPE_VERSION ": " + opened->description);
  if (attainable) {
    text.set_device_notes([&attainable](std::uint32_t device) { return attainable->description_of(device); });
  }
  SampleSink* sink = common.json ? static_cast<SampleSink*>(&json) : &text;
  const int code = run_engine_with_attainable(*opened->source, {sink}, options, attainable.get(), err,
                                              pm_yield_setup(common.pm_policy, opened->live));
  const int read = report_replay_end(*opened, err);
  return code != kExitOk ? code : read;
}

}  // namespace solscope::app
