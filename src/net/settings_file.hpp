// Small local files that hold the daemon's settings and secrets (token files, the config file, the TLS
// certificate and key): one bounded reader with the checks such a file deserves, so that a FIFO, a device
// or a huge file never blocks or exhausts memory at start.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace solscope::net {

/// What a settings file must be, besides a regular file.
struct SettingsFileRules {
  std::string_view what;      ///< names the file in messages: "token file", "config file", "TLS key"
  std::size_t max_bytes = 0;  ///< largest size read (bytes); a larger file is refused, not cut
  bool owner_only = false;    ///< refuse a file that its group or others may read, write or run (secrets)
  std::string_view hint;      ///< the hint of "cannot read" errors
};

/// Reads the whole settings file `path` under `rules`. The open never blocks (O_NONBLOCK: a FIFO without a
/// writer is refused, not waited on) and never adopts a terminal; the type, permissions and size are checked
/// on the open descriptor (no race with a rename), and at most max_bytes + 1 bytes are ever read (a file that
/// grows while read is refused too). Errors, each naming `rules.what` and `path`:
/// NotFound "cannot read WHAT PATH: REASON" (missing, unreadable; an empty file is read as "");
/// InvalidArgument "WHAT PATH is not a regular file" (a FIFO, a device such as /dev/zero, a directory, a
/// socket) or "WHAT PATH holds N bytes" (over max_bytes);
/// PermissionDenied "WHAT PATH is open to other users (mode 0644)" with owner_only.
[[nodiscard]] auto read_settings_file(const std::string& path, const SettingsFileRules& rules)
    -> core::Result<std::string>;

}  // namespace solscope::net
