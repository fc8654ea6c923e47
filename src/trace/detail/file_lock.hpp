// The exclusive lock a Writer holds on its trace file, so that two recorders never write into one file.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <utility>

#include "core/result.hpp"

namespace solscope::trace::detail {

/// An open descriptor of a trace file that holds flock(LOCK_EX) on it. The lock lasts until the descriptor is
/// closed: on destruction or reset(), or when the process ends in any way (SIGKILL included), so it never
/// goes stale. Move-only.
///
/// Why flock: SQLite takes its own POSIX (fcntl) byte-range locks on the file, and on Linux local filesystems
/// flock locks are independent of those, so readers (`replay`, `serve --replay`, Python's sqlite3) still open
/// a trace while it is recorded. Caveat of POSIX locks: closing any descriptor of a file drops every fcntl
/// lock this process holds on it, so the Writer closes this descriptor after its SQLite connection.
class FileLock {
 public:
  FileLock() = default;
  /// Takes ownership of `fd` (a descriptor this FileLock closes; -1 = none).
  explicit FileLock(int fd) noexcept : fd_(fd) {}
  FileLock(FileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  auto operator=(FileLock&& other) noexcept -> FileLock& {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  FileLock(const FileLock&) = delete;
  auto operator=(const FileLock&) -> FileLock& = delete;
  ~FileLock() { reset(); }

  /// Closes the descriptor, which releases the lock. Idempotent.
  void reset() noexcept;
  /// The descriptor (-1 when none).
  [[nodiscard]] auto fd() const -> int { return fd_; }

 private:
  int fd_ = -1;
};

/// Takes flock(LOCK_EX | LOCK_NB) on `fd`, an open descriptor of the trace at `path` (named in messages).
/// Never waits. Errors: Unavailable "trace PATH is being recorded by another process (pid N)" when another
/// open file description holds a lock on the file (the pid from /proc/locks; left out when not listed), with
/// a hint to stop that recorder or choose another path; Unavailable with the errno text otherwise.
[[nodiscard]] auto lock_exclusive(int fd, const std::filesystem::path& path) -> core::Result<void>;

/// The pid of a process holding a flock lock on the file of `fd`, from /proc/locks (Linux; the pid as seen
/// in this process's pid namespace). Empty when none is listed or /proc/locks cannot be read.
[[nodiscard]] auto flock_holder_pid(int fd) -> std::optional<pid_t>;

}  // namespace solscope::trace::detail
