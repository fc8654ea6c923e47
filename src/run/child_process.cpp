#include "run/child_process.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <utility>

namespace solscope::app {
namespace {

/// In the forked child, before exec: only async-signal-safe calls. Reports errno on `status_fd` and exits
/// 127 when exec fails.
[[noreturn]] void exec_child(const char* file, char* const* argv, char* const* envp, int inherit_fd,
                             int terminal_fd, int status_fd) {
  (void)setpgid(0, 0);
  if (terminal_fd >= 0) {
    // Also here (the parent does it too), so that CMD never reads the terminal as a background group.
    sigset_t ttou;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    (void)sigprocmask(SIG_BLOCK, &ttou, nullptr);
    (void)tcsetpgrp(terminal_fd, getpid());
  }
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int signo : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT}) (void)sigaction(signo, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  (void)sigprocmask(SIG_SETMASK, &none, nullptr);
  if (inherit_fd >= 0) (void)fcntl(inherit_fd, F_SETFD, 0);
  execve(file, argv, envp);
  const int error = errno;
  (void)!write(status_fd, &error, sizeof error);
  _exit(127);
}

auto is_executable_file(const std::string& path) -> bool {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

/// Standard input when it is a terminal whose foreground group is ours; -1 otherwise.
auto our_terminal() -> int {
  return isatty(STDIN_FILENO) == 1 && tcgetpgrp(STDIN_FILENO) == getpgrp() ? STDIN_FILENO : -1;
}

/// tcsetpgrp with SIGTTOU blocked (a background group may then change the foreground group).
void set_foreground(int fd, pid_t group) {
  sigset_t ttou;
  sigset_t old;
  sigemptyset(&ttou);
  sigaddset(&ttou, SIGTTOU);
  (void)pthread_sigmask(SIG_BLOCK, &ttou, &old);
  (void)tcsetpgrp(fd, group);
  (void)pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

auto exec_error(const std::string& command, int error) -> core::Error {
  const auto code = error == ENOENT   ? core::ErrorCode::NotFound
                    : error == EACCES ? core::ErrorCode::PermissionDenied
                                      : core::ErrorCode::Unavailable;
  return core::Error{code, "cannot run " + command + ": " + std::strerror(error),
                     "check the command after `--` (it runs without a shell)"};
}

/// Pointers into `strings` for exec, null-terminated.
auto c_array(std::vector<std::string>& strings) -> std::vector<char*> {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

auto ChildExit::describe() const -> std::string {
  if (signal == 0) return "exit " + std::to_string(exit_code);
  return "signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
}

auto find_in_path(const std::string& command, const std::string& path) -> std::optional<std::string> {
  if (command.find('/') != std::string::npos) return command;
  const std::string dirs = path.empty() ? "/usr/bin:/bin" : path;
  std::size_t begin = 0;
  while (begin <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', begin), dirs.size());
    const std::string dir = end > begin ? dirs.substr(begin, end - begin) : ".";
    const std::string candidate = dir + "/" + command;
    if (is_executable_file(candidate)) return candidate;
    begin = end + 1;
  }
  return std::nullopt;
}

auto ChildProcess::spawn(const ChildSpec& spec) -> core::Result<ChildProcess> {
  if (spec.argv.empty() || spec.argv.front().empty()) {
    return core::fail(core::ErrorCode::InvalidArgument, "no command to run",
                      "give it after `--`: solscope run -- CMD ARGS...");
  }
  const std::string& command = spec.argv.front();
  const auto file = find_in_path(command, spec.path);
  if (!file) {
    return core::fail(core::ErrorCode::NotFound, "cannot run " + command + ": no such command in PATH",
                      "check its spelling, or give its path");
  }
  std::vector<std::string> args = spec.argv;
  std::vector<std::string> env = spec.environment;
  const std::vector<char*> argv = c_array(args);
  const std::vector<char*> envp = c_array(env);
  std::array<int, 2> status{};
  if (pipe2(status.data(), O_CLOEXEC) != 0) {
    return core::fail(core::ErrorCode::Unavailable,
                      std::string("cannot start a process: ") + std::strerror(errno));
  }
  // A SIGCHLD that solscope's own parent left ignored would make the kernel reap CMD by itself: waitpid then
  // never reports its exit and `run` would wait forever. Children must stay waitable.
  struct sigaction child_default {};
  child_default.sa_handler = SIG_DFL;
  sigemptyset(&child_default.sa_mask);
  (void)sigaction(SIGCHLD, &child_default, nullptr);
  const int terminal = spec.take_terminal ? our_terminal() : -1;
  const pid_t pid = fork();
  if (pid == 0) exec_child(file->c_str(), argv.data(), envp.data(), spec.inherit_fd, terminal, status[1]);
  const int fork_errno = errno;
  close(status[1]);
  if (pid < 0) {
    close(status[0]);
    return core::fail(core::ErrorCode::Unavailable,
                      std::string("cannot start a process: ") + std::strerror(fork_errno));
  }
  (void)setpgid(pid, pid);  // also here, so that the group exists before any signal is forwarded
  if (terminal >= 0) set_foreground(terminal, pid);
  int exec_errno = 0;
  ssize_t got = 0;
  do {
    got = read(status[0], &exec_errno, sizeof exec_errno);
  } while (got < 0 && errno == EINTR);
  close(status[0]);
  ChildProcess child(pid);
  child.terminal_fd_ = terminal;
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    int ignored = 0;
    while (waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {
    }
    child.exit_ = ChildExit{127, 0};
    child.return_terminal();
    return core::fail(exec_error(command, exec_errno));
  }
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      terminal_fd_(std::exchange(other.terminal_fd_, -1)),
      exit_(std::move(other.exit_)) {}

auto ChildProcess::operator=(ChildProcess&& other) noexcept -> ChildProcess& {
  if (this != &other) {
    pid_ = std::exchange(other.pid_, -1);
    terminal_fd_ = std::exchange(other.terminal_fd_, -1);
    exit_ = std::move(other.exit_);
  }
  return *this;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !exit_) {
    (void)kill(-pid_, SIGKILL);
    int ignored = 0;
    while (waitpid(pid_, &ignored, 0) < 0 && errno == EINTR) {
    }
  }
  return_terminal();
}

void ChildProcess::return_terminal() {
  if (terminal_fd_ < 0) return;
  set_foreground(terminal_fd_, getpgrp());
  terminal_fd_ = -1;
}

auto ChildProcess::poll() -> std::optional<ChildExit> {
  if (exit_ || pid_ <= 0) return exit_;
  int status = 0;
  const pid_t done = waitpid(pid_, &status, WNOHANG);
  if (done != pid_) return std::nullopt;
  if (WIFSIGNALED(status)) {
    exit_ = ChildExit{0, WTERMSIG(status)};
  } else {
    exit_ = ChildExit{WEXITSTATUS(status), 0};
  }
  return_terminal();
  return exit_;
}

auto ChildProcess::signal_group(int signal) const -> bool {
  return pid_ > 0 && kill(-pid_, signal) == 0;
}

}  // namespace solscope::app
