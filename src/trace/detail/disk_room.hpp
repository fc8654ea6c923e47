// Tells a full disk from other write failures of a trace. SQLite reports ENOSPC as SQLITE_FULL only where it
// sees it; a quota (EDQUOT) or the file size limit (EFBIG, RLIMIT_FSIZE) comes back as a plain I/O error
// (SQLITE_IOERR_WRITE), and sqlite3_system_errno() is 0 by then. The user's fix is the same for all of them.
#pragma once

#include <cstdint>
#include <filesystem>

#include "core/result.hpp"

namespace solscope::trace::detail {

/// A write failed for lack of room when less than this is left: free bytes on the filesystem (for this user),
/// or bytes below the file size limit for the trace or its -wal file. Far above one commit's pages.
inline constexpr std::uintmax_t kRoomSlackBytes = 1 << 20;

/// True when the filesystem holding `path` has less than kRoomSlackBytes free (statvfs f_bavail), or
/// RLIMIT_FSIZE is set and `path` or `path`-wal is within kRoomSlackBytes of it.
[[nodiscard]] auto out_of_room(const std::filesystem::path& path) -> bool;

/// `error` as ResourceExhausted ("no room left") when it is an I/O error (Unavailable) of writing the trace
/// at `path` and out_of_room(path); otherwise `error` unchanged.
[[nodiscard]] auto classify_write_error(core::Error error, const std::filesystem::path& path) -> core::Error;

}  // namespace solscope::trace::detail
