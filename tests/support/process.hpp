// Runs a child process for end-to-end tests: captures stdout and stderr, enforces a timeout, and can signal
// it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace solscope::testing {

/// What a finished child did.
struct ProcessResult {
  int exit_code = -1;  ///< exit status, or 128 + signal when killed by a signal
  std::string out;
  std::string err;
  bool timed_out = false;
};

/// Runs `argv` (argv[0] is a path) with `env` added to the environment, waits at most `timeout`, kills it
/// then.
auto run_process(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                 const std::vector<std::string>& env = {}) -> ProcessResult;

/// A child left running: started with output to files, so that a test can signal it at any moment.
class BackgroundProcess {
 public:
  BackgroundProcess(const std::vector<std::string>& argv, const std::string& out_path,
                    const std::string& err_path);
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  auto operator=(const BackgroundProcess&) -> BackgroundProcess& = delete;
  /// Sends `signo`.
  void signal(int signo) const;
  /// Waits for the exit (at most `timeout`, then SIGKILL); returns the exit code or 128 + signal.
  auto wait(std::chrono::milliseconds timeout) -> int;
  /// The child's process id.
  [[nodiscard]] auto pid() const -> pid_t { return pid_; }

 private:
  pid_t pid_ = -1;
};

/// A child whose stdout is a pipe that nobody reads until drain(): its writes block once the pipe is full, as
/// behind a stalled `| less`. stderr is collected by drain() too. `env` ("NAME=value") is added to the
/// child's environment. run_process() is one of these drained at once.
class StalledPipeProcess {
 public:
  explicit StalledPipeProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env = {});
  ~StalledPipeProcess();  ///< kills a child still running
  StalledPipeProcess(const StalledPipeProcess&) = delete;
  auto operator=(const StalledPipeProcess&) -> StalledPipeProcess& = delete;
  /// Bytes written to the stdout pipe and not yet read (FIONREAD).
  [[nodiscard]] auto pending_stdout_bytes() const -> int;
  /// Waits (at most `timeout`) until the stdout pipe holds at least `bytes`; false on timeout.
  auto wait_for_pending(int bytes, std::chrono::milliseconds timeout) const -> bool;
  /// Sends `signo`.
  void signal(int signo) const;
  /// Reads stdout and stderr to their ends, then waits for the exit (at most `timeout` in all, then SIGKILL).
  auto drain(std::chrono::milliseconds timeout) -> ProcessResult;

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
};

}  // namespace solscope::testing
