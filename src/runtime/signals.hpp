// Process signals: SIGINT and SIGTERM ask the running command to stop cleanly (flush, close, exit 0).
#pragma once

#include <atomic>

namespace solscope::app {

/// Installs handlers for SIGINT, SIGTERM and SIGHUP that set the returned flag (async-signal-safe) and
/// ignores SIGPIPE (a closed stdout then shows up as a write error). The handlers restart interrupted system
/// calls (SA_RESTART): a write blocked on a full stdout pipe completes its line once the reader drains it. A
/// second SIGINT/SIGTERM while stopping restores the default action, so a stuck process can still be killed
/// with a second Ctrl-C.
auto install_stop_signals() -> const std::atomic<bool>&;

/// The flag install_stop_signals() returns, without installing anything: for what must hold it before the
/// handlers are installed, or whether they are (an outgoing request's stop flag, net::RemoteEndpoint::stop).
auto stop_flag() -> const std::atomic<bool>&;

/// How many SIGINT/SIGTERM/SIGHUP forward_signals_to_group() passes on before it sends SIGKILL instead: the
/// third one kills the group, so that a command that ignores or survives stop requests cannot keep
/// `solscope run` waiting forever.
inline constexpr int kForwardsBeforeKill = 3;

/// For `solscope run`: from now on SIGINT, SIGTERM and SIGHUP are sent on to process group `group`
/// (kill(-group, signo) in the handler), each time one arrives, instead of stopping solscope: the command
/// decides when to end and solscope waits for it. The kForwardsBeforeKill-th signal (counted from this call)
/// and every later one send SIGKILL to the group instead. stop_signal() still names the last one. `group` 0
/// turns forwarding off again (the handlers then stop solscope as before). Call install_stop_signals() first.
void forward_signals_to_group(int group);

/// The signal that requested the stop (0 when none).
auto stop_signal() -> int;

}  // namespace solscope::app
