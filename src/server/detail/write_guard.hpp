// The checks every write request (POST /api/v1/profiling/pause and /resume) passes before its route runs,
// besides the bearer token that every data request sends (private to src/server; docs/http-api.md
// "Security"). They keep a write from coming from a web page: no browser sends a cross-origin POST with
// Content-Type application/json without a CORS preflight, which this server never answers, and a page
// reached through DNS rebinding names its own host, not a loopback address.
#pragma once

#include <httplib.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace solscope::server::detail {

/// Why a request was refused: its HTTP status, the error and hint of its JSON body, and its Allow header
/// (empty = none).
struct Refusal {
  int status = 400;
  std::string error;
  std::string hint;
  std::string allow;
};

/// True for the paths that take a POST (the write endpoints).
[[nodiscard]] auto is_write_path(std::string_view path) -> bool;

/// The checks of a write request to a server whose bearer token is `token` (empty = none), after the token
/// check passed: nullopt when it may go on, else the refusal, first match wins:
/// - a method other than POST: 405, Allow: POST;
/// - no token, and a client that is not on this machine (req.remote_addr not loopback): 403;
/// - no token, and a Host header that names no loopback address ("127.0.0.1:9741", "localhost", "[::1]"):
///   403 (a page reached through DNS rebinding);
/// - an Origin header other than the server's own (http[s]://HOST): 403 (a cross-site page);
/// - a Content-Type other than application/json (parameters allowed): 415;
/// - a Content-Encoding (compressed body): 415;
/// - Transfer-Encoding, or no Content-Length: 411;
/// - a Content-Length over `max_body_bytes`: 413.
[[nodiscard]] auto check_write(const httplib::Request& req, std::string_view token, bool tls,
                               std::size_t max_body_bytes) -> std::optional<Refusal>;

}  // namespace solscope::server::detail
