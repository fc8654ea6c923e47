#include "trace/detail/disk_room.hpp"

#include <sys/resource.h>
#include <sys/statvfs.h>

#include <string>
#include <system_error>
#include <utility>

namespace solscope::trace::detail {
namespace fs = std::filesystem;

namespace {

/// True when the file at `file` (if any) is within kRoomSlackBytes of the file size limit `limit_bytes`.
auto near_limit(const fs::path& file, std::uintmax_t limit_bytes) -> bool {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(file, ec);
  return !ec && size + kRoomSlackBytes >= limit_bytes;
}

}  // namespace

auto out_of_room(const fs::path& path) -> bool {
  const fs::path parent = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  struct statvfs fs_stat {};
  if (::statvfs(parent.c_str(), &fs_stat) == 0 &&
      static_cast<std::uintmax_t>(fs_stat.f_bavail) * fs_stat.f_frsize < kRoomSlackBytes) {
    return true;
  }
  rlimit limit{};
  if (::getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return false;
  const auto limit_bytes = static_cast<std::uintmax_t>(limit.rlim_cur);
  return near_limit(path, limit_bytes) || near_limit(path.string() + "-wal", limit_bytes);
}

auto classify_write_error(core::Error error, const fs::path& path) -> core::Error {
  if (error.code == core::ErrorCode::Unavailable && out_of_room(path)) {
    error.code = core::ErrorCode::ResourceExhausted;
    error.message += " (no room left for the trace)";
  }
  return error;
}

}  // namespace solscope::trace::detail
