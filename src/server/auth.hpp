// Who may read the daemon: the bearer token's constant-time check. The token's file is net/token_file.hpp,
// what counts as a loopback listen address net/loopback.hpp.
#pragma once

#include <string_view>

namespace solscope::server {

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

}  // namespace solscope::server
