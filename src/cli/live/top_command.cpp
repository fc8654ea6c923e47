// `solscope` / `solscope top`: the terminal view of every GPU (or of a trace), its options, and the seam
// where it attaches to a running daemon instead of sampling.
#include "cli/live/top_command.hpp"

#include <CLI/CLI.hpp>

#include "cli/config/bind.hpp"
#include "cli/live/tui_session.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/messages.hpp"
#include "runtime/remote_attach.hpp"
#include "runtime/signals.hpp"
#include "tui/tui.hpp"

namespace solscope::app {
namespace {

/// The terminal view over a daemon's figures (connect_remote feeds the LiveState).
auto run_attached(const std::string& address, std::ostream& err) -> int {
  core::LiveState state;
  const auto& stop = install_stop_signals();
  auto attached = connect_remote(address, state, stop);
  if (!attached) {
    print_error(err, attached.error());
    return kExitFailure;
  }
  if (!want_terminal_view(false)) {
    print_error(err, core::Error{core::ErrorCode::Unimplemented,
                                 "the plain view of an attached daemon is not available",
                                 "run in a terminal, or read the daemon's /api/v1 directly"});
    return kExitUsage;
  }
  const RemoteAttachment& remote = **attached;
  tui::TuiOptions view = tui_options_from_env(tui::SourceInfo{.title = remote.description()}, 0);
  view.feed_status = [&remote] { return remote.status(); };
  auto shown = tui::run_tui(state, view, nullptr, stop);
  if (!shown) {
    print_error(err, shown.error());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

void add_top_options(CLI::App& app, TopArgs& args) {
  config::add_option(app, config::Scope::Global, "--connect", args.connect);
}

auto run_top(const CommonOptions& common, const WorkloadOptions& workloads, const TopArgs& args,
             std::ostream& out, std::ostream& err) -> int {
  if (!args.connect.empty()) return run_attached(args.connect, err);
  // One profiler per GPU: a local daemon already holding the counters is shown instead of competing with it.
  if (common.replay.empty() && !common.json) {
    if (const std::string local = find_local_daemon(); !local.empty()) {
      print_note(err, "a solscope daemon on " + local + " holds the GPU counters: showing its figures");
      return run_attached(local, err);
    }
  }
  return run_live(common, workloads, out, err);
}

}  // namespace solscope::app
