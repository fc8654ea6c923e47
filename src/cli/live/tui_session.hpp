// Runs the terminal view (src/tui) over a source: the engine on its own thread feeding a LiveState, the
// replay controls or the process refresh, and the view on the calling thread. Used by `solscope`, `solscope
// top` and `solscope replay` when stdout is a terminal.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "attainable/attainable_sol.hpp"
#include "runtime/engine.hpp"
#include "runtime/pm_yield_driver.hpp"
#include "runtime/process_refresh.hpp"
#include "runtime/source_factory.hpp"
#include "tui/tui.hpp"

namespace solscope::app {

/// True when the terminal view should run: not --json, stdin and stdout are terminals, and $TERM is set and
/// not "dumb". Otherwise the commands keep their plain line view (or JSON Lines).
[[nodiscard]] auto want_terminal_view(bool json) -> bool;

/// What run_terminal_view() runs.
struct TerminalViewOptions {
  std::string title;                    ///< header title, e.g. "NVIDIA GPUs" or "replay of run.sqlite"
  EngineOptions engine;                 ///< poll interval and pacing
  AttainableSol* attainable = nullptr;  ///< live GPUs: the workload notes and attainable SOL; may be null
  /// Replays: the trace file (its time span gives the length shown), and the speed it was opened at.
  std::string replay_path;
  double speed = 1.0;
  std::int64_t started_steady_ns =
      0;                  ///< when the command started (tui::steady_now_ns), for the first-frame time
  PmYieldSetup pm_yield;  ///< live GPUs: yield the counters to profilers (BackgroundEngineOptions::pm_yield)
  WorkloadRefreshOptions refresh;  ///< live GPUs: the process and workload refresh (ProcessRefresher)
};

/// The terminal view's options for `source`: $NO_COLOR, $SOLSCOPE_COLORS, $SOLSCOPE_ASCII and
/// $SOLSCOPE_TUI_STATS read from the environment, 10 frames/s, no feed status.
[[nodiscard]] auto tui_options_from_env(tui::SourceInfo source, std::int64_t started_steady_ns)
    -> tui::TuiOptions;

/// Runs the terminal view over `opened` (started) until the user quits or a stop signal. Replays
/// (`replay_path` set) get pause/speed/seek; live NVIDIA sources get their process table refreshed every 2 s.
/// Prints the engine's warnings and any failure to `err` once the terminal is restored. Returns the exit
/// code: kExitOk, or kExitFailure when the terminal cannot be used or the source failed.
[[nodiscard]] auto run_terminal_view(OpenedSource& opened, const TerminalViewOptions& options,
                                     std::ostream& err) -> int;

}  // namespace solscope::app
