#include "workload/detail/file_read.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <system_error>

namespace solscope::workload::detail {
namespace {

auto errno_error(int err, const std::string& what, const std::filesystem::path& path)
    -> core::Unexpected<core::Error> {
  const std::string message =
      what + " " + path.string() + ": " + std::error_code(err, std::generic_category()).message();
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return core::fail(core::ErrorCode::NotFound, message);
    case EACCES:
    case EPERM:
      return core::fail(core::ErrorCode::PermissionDenied, message,
                        "run solscope as the process owner or as root to see it");
    default:
      return core::fail(core::ErrorCode::Unavailable, message);
  }
}

}  // namespace

auto read_file_into(const std::filesystem::path& path, std::size_t max_bytes, std::string& text)
    -> core::Result<void> {
  text.clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_error(errno, "cannot open", path);
  constexpr std::size_t kChunkBytes = 8192;
  while (text.size() < max_bytes) {
    const std::size_t have = text.size();
    text.resize(have + kChunkBytes);
    const ssize_t n = ::read(fd, text.data() + have, kChunkBytes);
    text.resize(have + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      text.clear();
      return errno_error(err, "cannot read", path);
    }
    if (n == 0) break;
  }
  ::close(fd);
  if (text.size() > max_bytes) text.resize(max_bytes);
  return core::ok();
}

auto read_file(const std::filesystem::path& path, std::size_t max_bytes) -> core::Result<std::string> {
  std::string text;
  if (auto read = read_file_into(path, max_bytes, text); !read) return core::propagate(std::move(read));
  return text;
}

auto read_link(const std::filesystem::path& path) -> core::Result<std::string> {
  std::array<char, 4096> buffer{};
  const ssize_t n = ::readlink(path.c_str(), buffer.data(), buffer.size());
  if (n < 0) return errno_error(errno, "cannot read link", path);
  return std::string(buffer.data(), static_cast<std::size_t>(n));
}

auto numeric_entries(const std::filesystem::path& dir) -> std::vector<std::int64_t> {
  std::vector<std::int64_t> out;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return out;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    std::int64_t value = 0;
    if (parse_int(it->path().filename().native(), 0, INT64_MAX, value)) out.push_back(value);
  }
  return out;
}

auto is_regular_file(const std::filesystem::path& path) -> bool {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

auto is_directory(const std::filesystem::path& path) -> bool {
  std::error_code ec;
  return std::filesystem::is_directory(path, ec);
}

auto parse_int(std::string_view text, std::int64_t min, std::int64_t max, std::int64_t& out) -> bool {
  if (text.empty()) return false;
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < min || value > max) return false;
  out = value;
  return true;
}

auto trim(std::string_view text) -> std::string_view {
  constexpr std::string_view kSpace = " \t\r\n\f\v";
  const auto first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(kSpace);
  return text.substr(first, last - first + 1);
}

auto next_line(std::string_view& text) -> std::string_view {
  const auto eol = text.find('\n');
  const std::string_view line = text.substr(0, eol);
  text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
  return line;
}

}  // namespace solscope::workload::detail
