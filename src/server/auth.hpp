// Who may read the daemon: the bearer token (its file, its constant-time check) and what counts as loopback.
#pragma once

#include <string>
#include <string_view>

#include "core/result.hpp"

namespace solscope::server {

/// Shortest token accepted from a token file (docs/http-api.md "Security"): 16 characters.
inline constexpr std::size_t kMinTokenLength = 16;

/// Largest token file read: 4 KiB (a token is one line).
inline constexpr std::size_t kMaxTokenFileBytes = 4096;

/// Reads a bearer token from `path`: the first line, without surrounding spaces, tabs and CR. Only a regular
/// file of at most kMaxTokenFileBytes, open to its owner only (as ssh wants of keys), is read; the open never
/// blocks (a FIFO is refused, not waited on). Errors: NotFound "cannot read token file PATH: REASON" (missing
/// or unreadable) or "... is empty"; InvalidArgument "token file PATH is not a regular file", "... holds N
/// bytes" (over 4 KiB), "... holds a token of N characters" when shorter than kMinTokenLength, or when it
/// holds characters outside the RFC 6750 b64token set (letters, digits, -._~+/ and trailing =);
/// PermissionDenied "token file PATH is open to other users (mode 0644)" when group or others have any
/// permission.
[[nodiscard]] auto read_token_file(const std::string& path) -> core::Result<std::string>;

/// True when `a` equals `b`. The time taken depends only on the lengths, never on where they differ (no early
/// exit), so the token cannot be guessed byte by byte from response times.
[[nodiscard]] auto tokens_equal(std::string_view a, std::string_view b) -> bool;

/// Outcome of checking a request's Authorization header.
enum class AuthCheck {
  Ok,       ///< no token configured, or the right one sent
  Missing,  ///< no "Authorization: Bearer ..." header (HTTP 401)
  Wrong,    ///< a bearer token that is not the configured one (HTTP 403)
};

/// Checks an Authorization header value (empty when absent) against `token` (empty = no token required). The
/// scheme "Bearer" is case-insensitive (RFC 7235 section 2.1); anything else counts as Missing.
[[nodiscard]] auto check_bearer(std::string_view authorization, std::string_view token) -> AuthCheck;

/// True for a loopback listen address: "localhost", an IPv4 address in 127.0.0.0/8, or the IPv6 loopback
/// "::1" (with or without brackets). Host names other than "localhost" are not resolved and count as not
/// loopback.
[[nodiscard]] auto is_loopback_host(std::string_view host) -> bool;

}  // namespace solscope::server
