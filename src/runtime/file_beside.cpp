#include "runtime/file_beside.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>
#include <utility>

namespace solscope::app {
namespace fs = std::filesystem;

namespace {

/// Mode of the temporary file before the umask: the same as a file that std::ofstream creates.
constexpr mode_t kNewFileMode = 0666;

auto temporary_beside(const fs::path& target) -> fs::path {
  return target.parent_path() /
         ("." + target.filename().string() + ".solscope-" + std::to_string(::getpid()) + ".tmp");
}

}  // namespace

FileBeside::FileBeside(fs::path target, fs::path temporary)
    : target_(std::move(target)), temporary_(std::move(temporary)) {
  stream_.open(temporary_, std::ios::binary | std::ios::trunc);
}

FileBeside::FileBeside(FileBeside&& other) noexcept
    : target_(std::move(other.target_)),
      temporary_(std::move(other.temporary_)),
      stream_(std::move(other.stream_)),
      committed_(other.committed_) {
  other.committed_ = true;  // the moved-from object owns nothing to remove
}

FileBeside::~FileBeside() {
  if (committed_) return;
  stream_.close();
  std::error_code ec;
  fs::remove(temporary_, ec);
}

auto FileBeside::create(const fs::path& target) -> core::Result<FileBeside> {
  const fs::path temporary = temporary_beside(target);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kNewFileMode);
  if (fd < 0) {
    const int saved = errno;
    return core::fail(
        saved == EACCES || saved == EPERM ? core::ErrorCode::PermissionDenied : core::ErrorCode::Unavailable,
        "cannot create a temporary file beside " + target.string() + ": " + std::strerror(saved),
        "check that the directory is writable and has free space");
  }
  ::close(fd);
  FileBeside file(target, temporary);
  if (!file.stream_) {
    return core::fail(core::ErrorCode::Unavailable,
                      "cannot open the temporary file " + temporary.string() + " for writing",
                      "check that the directory is writable");
  }
  return file;
}

auto FileBeside::commit() -> core::Result<void> {
  stream_.flush();
  stream_.close();
  if (!stream_) {
    return core::fail(core::ErrorCode::Unavailable,
                      "cannot write " + target_.string() + ": the write failed, nothing was written there",
                      "free space on that filesystem and try again");
  }
  std::error_code ec;
  fs::rename(temporary_, target_, ec);
  if (ec) {
    return core::fail(core::ErrorCode::Unavailable, "cannot write " + target_.string() + ": " + ec.message(),
                      "check that the directory is writable");
  }
  committed_ = true;
  return core::ok();
}

}  // namespace solscope::app
