#include "support/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <thread>

namespace solscope::testing {
namespace {

auto exec_argv(const std::vector<std::string>& argv) -> std::vector<char*> {
  std::vector<char*> out;
  for (const auto& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

/// In a forked child: stdout and stderr to the write ends of the pipes, stdin from /dev/null, `env` added to
/// the environment, then execs `argv`; exits 127 when the exec fails.
[[noreturn]] void exec_piped(const std::vector<std::string>& argv, const int (&out_pipe)[2],
                             const int (&err_pipe)[2], const std::vector<std::string>& env) {
  ::dup2(out_pipe[1], 1);
  ::dup2(err_pipe[1], 2);
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  const int null_fd = ::open("/dev/null", O_RDONLY);
  ::dup2(null_fd, 0);
  for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
  auto args = exec_argv(argv);
  ::execv(args[0], args.data());
  ::_exit(127);
}

auto decode_status(int status) -> int {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

/// Reads both pipes until EOF or the deadline.
void drain(int out_fd, int err_fd, ProcessResult& result, std::chrono::steady_clock::time_point deadline) {
  std::array<pollfd, 2> fds{pollfd{out_fd, POLLIN, 0}, pollfd{err_fd, POLLIN, 0}};
  std::array<std::string*, 2> sinks{&result.out, &result.err};
  int open_fds = 2;
  char buffer[65536];
  while (open_fds > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      return;
    }
    if (::poll(fds.data(), fds.size(), static_cast<int>(left.count())) <= 0) continue;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP)) == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n <= 0) {
        fds[i].fd = -1;
        --open_fds;
      } else {
        sinks[i]->append(buffer, static_cast<std::size_t>(n));
      }
    }
  }
}

}  // namespace

auto run_process(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                 const std::vector<std::string>& env) -> ProcessResult {
  return StalledPipeProcess(argv, env).drain(timeout);
}

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv, const std::string& out_path,
                                     const std::string& err_path) {
  pid_ = ::fork();
  if (pid_ == 0) {
    const int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    auto args = exec_argv(argv);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
}

BackgroundProcess::~BackgroundProcess() {
  if (pid_ > 0) wait(std::chrono::milliseconds(0));
}

void BackgroundProcess::signal(int signo) const {
  if (pid_ > 0) ::kill(pid_, signo);
}

auto BackgroundProcess::wait(std::chrono::milliseconds timeout) -> int {
  if (pid_ <= 0) return -1;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  pid_ = -1;
  return decode_status(status);
}

StalledPipeProcess::StalledPipeProcess(const std::vector<std::string>& argv,
                                       const std::vector<std::string>& env) {
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe(out_pipe) != 0) return;
  if (::pipe(err_pipe) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return;
  }
  pid_ = ::fork();
  if (pid_ == 0) {
    exec_piped(argv, out_pipe, err_pipe, env);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  out_fd_ = out_pipe[0];
  err_fd_ = err_pipe[0];
}

StalledPipeProcess::~StalledPipeProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0) ::close(out_fd_);
  if (err_fd_ >= 0) ::close(err_fd_);
}

auto StalledPipeProcess::pending_stdout_bytes() const -> int {
  int bytes = 0;
  if (out_fd_ < 0 || ::ioctl(out_fd_, FIONREAD, &bytes) != 0) return -1;
  return bytes;
}

auto StalledPipeProcess::wait_for_pending(int bytes, std::chrono::milliseconds timeout) const -> bool {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (pending_stdout_bytes() < bytes) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

void StalledPipeProcess::signal(int signo) const {
  if (pid_ > 0) ::kill(pid_, signo);
}

auto StalledPipeProcess::drain(std::chrono::milliseconds timeout) -> ProcessResult {
  ProcessResult result;
  if (pid_ <= 0) return result;
  testing::drain(out_fd_, err_fd_, result, std::chrono::steady_clock::now() + timeout);
  ::close(out_fd_);
  ::close(err_fd_);
  out_fd_ = err_fd_ = -1;
  if (result.timed_out) ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  result.exit_code = decode_status(status);
  return result;
}

}  // namespace solscope::testing
