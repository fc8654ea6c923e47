#include "server/auth.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace solscope::server {
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

auto tokens_equal(std::string_view a, std::string_view b) -> bool {
  // Compare every byte of the longer string; the length difference is folded in, never short-circuited.
  const std::size_t n = std::max(a.size(), b.size());
  unsigned diff = a.size() == b.size() ? 0U : 1U;
  for (std::size_t i = 0; i < n; ++i) {
    const auto x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0U;
    const auto y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0U;
    diff |= x ^ y;
  }
  return diff == 0;
}

auto check_bearer(std::string_view authorization, std::string_view token) -> AuthCheck {
  if (token.empty()) return AuthCheck::Ok;
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size()) return AuthCheck::Missing;
  for (std::size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != kScheme[i]) return AuthCheck::Missing;
  }
  const std::string_view sent = trim(authorization.substr(kScheme.size()));
  return tokens_equal(sent, token) ? AuthCheck::Ok : AuthCheck::Wrong;
}

auto is_loopback_host(std::string_view host) -> bool {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const std::string text(host);
  in_addr v4{};
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24U) == 127U;
  in6_addr v6{};
  if (inet_pton(AF_INET6, text.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6) != 0;
  return host == "localhost";
}

}  // namespace solscope::server
