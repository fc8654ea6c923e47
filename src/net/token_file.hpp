// Bearer tokens kept in files (`--token-file`, `--prometheus-token-file`, `--dcgm-exporter-token-file`, the
// token of a daemon to attach to): one reader, with the checks a secret deserves.
#pragma once

#include <cstddef>
#include <string>

#include "core/result.hpp"

namespace solscope::net {

/// Shortest token accepted from a token file (docs/http-api.md "Security"): 16 characters.
inline constexpr std::size_t kMinTokenLength = 16;

/// Largest token file read: 4 KiB (a token is one line).
inline constexpr std::size_t kMaxTokenFileBytes = 4096;

/// Reads a bearer token from `path`: the first line, without surrounding spaces, tabs and CR. Only a regular
/// file of at most kMaxTokenFileBytes, open to its owner only (as ssh wants of keys), is read; the open never
/// blocks (a FIFO is refused, not waited on): read_settings_file() (net/settings_file.hpp) reads it. Errors:
/// NotFound "cannot read token file PATH: REASON" (missing or unreadable) or "... is empty"; InvalidArgument
/// "token file PATH is not a regular file", "... holds N bytes" (over 4 KiB, or "more than 4096" when it grew
/// while read), "... holds a token of N characters" when shorter than kMinTokenLength, or when it holds
/// characters outside the RFC 6750 b64token set (letters, digits, -._~+/ and trailing =); PermissionDenied
/// "token file PATH is open to other users (mode 0644)" when group or others have any permission.
[[nodiscard]] auto read_token_file(const std::string& path) -> core::Result<std::string>;

}  // namespace solscope::net
