#include "net/token_file.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace solscope::net {
namespace {

auto is_token_char(char c) -> bool {
  const auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) != 0 || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' ||
         c == '=';
}

auto trim(std::string_view s) -> std::string_view {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

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

/// The bytes of the regular file `path` (at most kMaxTokenFileBytes), readable by its owner only. Opened
/// without blocking (a FIFO or a device never stalls start) and without following into a terminal.
auto read_small_private_file(const std::string& path) -> core::Result<std::string> {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    return core::fail(core::ErrorCode::NotFound,
                      "cannot read token file " + path + ": " + std::strerror(errno),
                      "write the bearer token on the file's first line");
  }
  const FileDescriptor closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return core::fail(core::ErrorCode::InvalidArgument, "token file " + path + " is not a regular file",
                      "give a file holding the token (not a FIFO, a device or a directory)");
  }
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return core::fail(core::ErrorCode::PermissionDenied,
                      "token file " + path + " is open to other users (mode " + mode_text(st.st_mode) + ")",
                      "make it readable by its owner only: chmod 600 " + path);
  }
  if (st.st_size > static_cast<off_t>(kMaxTokenFileBytes)) {
    return core::fail(
        core::ErrorCode::InvalidArgument,
        "token file " + path + " holds " + std::to_string(st.st_size) + " bytes",
        "a token file holds one line of at most " + std::to_string(kMaxTokenFileBytes) + " bytes");
  }
  std::string text(kMaxTokenFileBytes + 1, '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > kMaxTokenFileBytes) {
    return core::fail(
        core::ErrorCode::InvalidArgument,
        "token file " + path + " is longer than " + std::to_string(kMaxTokenFileBytes) + " bytes",
        "a token file holds one line");
  }
  text.resize(got);
  if (text.empty()) {
    return core::fail(core::ErrorCode::NotFound, "token file " + path + " is empty",
                      "write the bearer token on the file's first line");
  }
  return text;
}

}  // namespace

auto read_token_file(const std::string& path) -> core::Result<std::string> {
  auto text = read_small_private_file(path);
  if (!text) return core::propagate(std::move(text));
  const std::string line = text->substr(0, text->find('\n'));
  const std::string token(trim(line));
  if (token.size() < kMinTokenLength) {
    return core::fail(
        core::ErrorCode::InvalidArgument,
        "token file " + path + " holds a token of " + std::to_string(token.size()) + " characters",
        "use at least " + std::to_string(kMinTokenLength) +
            " random characters, e.g. `(umask 077; openssl rand -hex 32 > " + path + ")`");
  }
  if (!std::all_of(token.begin(), token.end(), is_token_char)) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "token file " + path +
                          " holds characters a bearer "
                          "token cannot carry",
                      "use letters, digits and -._~+/ only, e.g. `openssl rand -hex 32`");
  }
  return token;
}

}  // namespace solscope::net
