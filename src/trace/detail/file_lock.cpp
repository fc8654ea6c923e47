#include "trace/detail/file_lock.hpp"

#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>

namespace solscope::trace::detail {

void FileLock::reset() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

auto flock_holder_pid(int fd) -> std::optional<pid_t> {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return std::nullopt;
  // A line of /proc/locks: "1: FLOCK  ADVISORY  WRITE 14502 fe:00:10954154 0 EOF" (major:minor in hex, then
  // the inode in decimal; proc(5)).
  const std::string file_id = fmt::format("{:02x}:{:02x}:{}", major(st.st_dev), minor(st.st_dev), st.st_ino);
  std::ifstream locks("/proc/locks");
  for (std::string line; std::getline(locks, line);) {
    std::istringstream fields(line);
    std::string number, kind, mode, access, id;
    long pid = 0;
    if (!(fields >> number >> kind >> mode >> access >> pid >> id)) continue;
    if (kind == "FLOCK" && id == file_id && pid > 0) return static_cast<pid_t>(pid);
  }
  return std::nullopt;
}

auto lock_exclusive(int fd, const std::filesystem::path& path) -> core::Result<void> {
  int rc = 0;
  do {
    rc = ::flock(fd, LOCK_EX | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc == 0) return core::ok();
  if (errno != EWOULDBLOCK) {
    return core::fail(core::ErrorCode::Unavailable,
                      "cannot lock trace " + path.string() + ": " + std::strerror(errno),
                      "record onto a local filesystem");
  }
  const auto holder = flock_holder_pid(fd);
  return core::fail(core::ErrorCode::Unavailable,
                    "trace " + path.string() + " is being recorded by another process" +
                        (holder ? " (pid " + std::to_string(*holder) + ")" : std::string{}),
                    "stop that recorder first, or choose another path");
}

}  // namespace solscope::trace::detail
