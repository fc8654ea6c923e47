#include "net/settings_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace solscope::net {
namespace {

/// Closes a file descriptor when it goes out of scope.
struct FileDescriptor {
  explicit FileDescriptor(int f) : fd(f) {}
  int fd;
  FileDescriptor(const FileDescriptor&) = delete;
  auto operator=(const FileDescriptor&) -> FileDescriptor& = delete;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

auto mode_text(mode_t mode) -> std::string {
  char text[8];
  std::snprintf(text, sizeof(text), "%04o", static_cast<unsigned>(mode & 07777U));
  return text;
}

auto too_big(const std::string& name, const SettingsFileRules& rules, std::string_view size)
    -> core::Unexpected<core::Error> {
  return core::fail(core::ErrorCode::InvalidArgument, name + " holds " + std::string(size) + " bytes",
                    "a " + std::string(rules.what) + " holds at most " + std::to_string(rules.max_bytes) +
                        " bytes: check the path");
}

/// Checks what the open descriptor is: a regular file, private when asked, within the size. Returns its size.
auto check_file(int fd, const std::string& path, const std::string& name, const SettingsFileRules& rules)
    -> core::Result<std::size_t> {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return core::fail(core::ErrorCode::InvalidArgument, name + " is not a regular file",
                      "give a file (not a FIFO, a device, a socket or a directory)");
  }
  if (rules.owner_only && (st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return core::fail(core::ErrorCode::PermissionDenied,
                      name + " is open to other users (mode " + mode_text(st.st_mode) + ")",
                      "make it readable by its owner only: chmod 600 " + path);
  }
  if (st.st_size > static_cast<off_t>(rules.max_bytes)) {
    return too_big(name, rules, std::to_string(st.st_size));
  }
  return static_cast<std::size_t>(st.st_size);
}

}  // namespace

auto read_settings_file(const std::string& path, const SettingsFileRules& rules)
    -> core::Result<std::string> {
  const std::string name = std::string(rules.what) + " " + path;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    return core::fail(core::ErrorCode::NotFound, "cannot read " + name + ": " + std::strerror(errno),
                      std::string(rules.hint));
  }
  const FileDescriptor closer{fd};
  auto size = check_file(fd, path, name, rules);
  if (!size) return core::propagate(std::move(size));
  // One byte past the size seen, to notice a file that grew; then up to one byte past the limit.
  std::string text(*size + 1, '\0');
  std::size_t got = 0;
  while (got <= rules.max_bytes) {
    if (got == text.size()) text.resize(rules.max_bytes + 1);
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return core::fail(core::ErrorCode::NotFound, "cannot read " + name + ": " + std::strerror(errno),
                        std::string(rules.hint));
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > rules.max_bytes) return too_big(name, rules, "more than " + std::to_string(rules.max_bytes));
  text.resize(got);
  return text;
}

}  // namespace solscope::net
