// The workload of `solscope run -- CMD`: started in a process group of its own, waited for, and its exit
// status mapped to solscope's exit code.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace solscope::app {

/// What to start.
struct ChildSpec {
  std::vector<std::string> argv;         ///< CMD ARGS...; argv[0] is looked up in `path` unless it has a '/'
  std::vector<std::string> environment;  ///< the whole environment of CMD, "KEY=VALUE" entries
  std::string path;                      ///< the PATH to search (":"-separated); empty = "/usr/bin:/bin"
  /// A descriptor of this process that CMD inherits under the same number (its close-on-exec flag is cleared
  /// in CMD only); -1 = none. Every other descriptor opened with O_CLOEXEC stays closed in CMD.
  int inherit_fd = -1;
  /// When solscope's standard input is its terminal's foreground process group, hand the terminal to CMD's
  /// group (tcsetpgrp) until CMD ends, so that CMD can read the terminal and Ctrl-C reaches it directly (a
  /// background group reading the terminal would be stopped by SIGTTIN). Given back when CMD ends.
  bool take_terminal = true;
};

/// How CMD ended.
struct ChildExit {
  int exit_code = 0;  ///< its exit status, or 0 when killed
  int signal = 0;     ///< the signal that killed it; 0 when it exited
  /// solscope's exit code for it: the exit status, or 128 + the signal (as shells report it).
  [[nodiscard]] auto solscope_code() const -> int { return signal != 0 ? 128 + signal : exit_code; }
  /// "exit 3" or "signal 15 (Terminated)".
  [[nodiscard]] auto describe() const -> std::string;
};

/// A started CMD; its process group id is its pid. Move-only. Destroying one that was not waited for kills
/// its group (SIGKILL) and reaps it, so that no workload outlives solscope by accident.
class ChildProcess {
 public:
  /// fork/exec of spec.argv in a new process group, with the default action for every signal solscope
  /// handles (SIGINT, SIGTERM, SIGHUP, SIGPIPE) and an empty signal mask. Sets solscope's own SIGCHLD to its
  /// default action first (an ignored SIGCHLD, inherited from solscope's parent, would let the kernel reap
  /// CMD unseen). Only async-signal-safe calls run
  /// between fork and exec; an exec that fails is reported here, not as an exit status. Errors:
  /// InvalidArgument for an empty argv; NotFound "cannot run CMD: no such command in PATH" / "... No such
  /// file or directory"; PermissionDenied "cannot run CMD: Permission denied"; Unavailable when fork fails.
  [[nodiscard]] static auto spawn(const ChildSpec& spec) -> core::Result<ChildProcess>;

  ChildProcess(ChildProcess&& other) noexcept;
  auto operator=(ChildProcess&& other) noexcept -> ChildProcess&;
  ChildProcess(const ChildProcess&) = delete;
  auto operator=(const ChildProcess&) -> ChildProcess& = delete;
  ~ChildProcess();

  [[nodiscard]] auto pid() const -> pid_t { return pid_; }
  /// Checks without blocking whether CMD ended (waitpid WNOHANG); its exit once it has. Later calls return
  /// the same exit.
  [[nodiscard]] auto poll() -> std::optional<ChildExit>;
  /// Sends `signal` to CMD's whole process group. False when the group no longer exists.
  auto signal_group(int signal) const -> bool;

 private:
  explicit ChildProcess(pid_t pid) : pid_(pid) {}
  /// Gives the terminal back to solscope's process group (SIGTTOU blocked meanwhile) when CMD had it.
  void return_terminal();
  pid_t pid_ = -1;
  int terminal_fd_ = -1;  ///< the terminal handed to CMD's group; -1 when none
  std::optional<ChildExit> exit_;
};

/// The absolute path of `command` in the ":"-separated `path` (the first executable regular file), or
/// `command` itself when it contains a '/'; nullopt when not found.
[[nodiscard]] auto find_in_path(const std::string& command, const std::string& path)
    -> std::optional<std::string>;

}  // namespace solscope::app
