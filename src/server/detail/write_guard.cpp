#include "server/detail/write_guard.hpp"

#include <charconv>

#include "core/text.hpp"
#include "net/loopback.hpp"

namespace solscope::server::detail {
namespace {

constexpr std::string_view kPausePath = "/api/v1/profiling/pause";
constexpr std::string_view kResumePath = "/api/v1/profiling/resume";

/// The host of a Host header value ("127.0.0.1:9741" -> "127.0.0.1", "[::1]:9741" -> "[::1]").
auto host_of(std::string_view authority) -> std::string_view {
  if (authority.starts_with('[')) return authority.substr(0, authority.find(']') + 1);
  return authority.substr(0, authority.find(':'));
}

/// A peer address as the socket gave it; an IPv4-mapped IPv6 address ("::ffff:127.0.0.1") as its IPv4.
auto peer_is_loopback(std::string_view address) -> bool {
  constexpr std::string_view kMapped = "::ffff:";
  if (core::to_lower_ascii(address.substr(0, kMapped.size())) == kMapped &&
      address.find('.') != std::string_view::npos) {
    address.remove_prefix(kMapped.size());
  }
  return net::is_loopback_host(address);
}

/// The media type of a Content-Type value, lower case, without parameters or blanks.
auto media_type(std::string_view value) -> std::string {
  value = value.substr(0, value.find(';'));
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  return core::to_lower_ascii(value);
}

auto forbidden(std::string error, std::string hint) -> Refusal {
  return Refusal{.status = 403, .error = std::move(error), .hint = std::move(hint), .allow = {}};
}

/// The checks of where a write comes from (peer, Host, Origin).
auto check_origin(const httplib::Request& req, std::string_view token, bool tls) -> std::optional<Refusal> {
  const std::string host = req.get_header_value("Host");
  if (token.empty()) {
    if (!peer_is_loopback(req.remote_addr)) {
      return forbidden("writes from another machine need a bearer token",
                       "start the daemon with --token-file FILE and send Authorization: Bearer <token>");
    }
    if (!net::is_loopback_host(host_of(host), net::LoopbackForm::Listen)) {
      return forbidden(
          "a write must name a loopback Host (127.0.0.1, [::1] or localhost), not '" + host + "'",
          "send it to http://127.0.0.1:PORT");
    }
  }
  if (req.has_header("Origin")) {
    const std::string own = std::string(tls ? "https://" : "http://") + core::to_lower_ascii(host);
    if (core::to_lower_ascii(req.get_header_value("Origin")) != own) {
      return forbidden("cross-origin writes are refused", "send the request from a program, not a web page");
    }
  }
  return std::nullopt;
}

/// The checks of the body's form (type, encoding, length).
auto check_body(const httplib::Request& req, std::size_t max_body_bytes) -> std::optional<Refusal> {
  if (media_type(req.get_header_value("Content-Type")) != "application/json") {
    return Refusal{.status = 415,
                   .error = "a write needs Content-Type: application/json",
                   .hint = "send the body as JSON, e.g. {\"for_s\": 600}",
                   .allow = {}};
  }
  if (req.has_header("Content-Encoding")) {
    return Refusal{.status = 415,
                   .error = "compressed request bodies are not accepted",
                   .hint = "send the JSON without Content-Encoding",
                   .allow = {}};
  }
  if (req.has_header("Transfer-Encoding") || !req.has_header("Content-Length")) {
    return Refusal{.status = 411,
                   .error = "a write needs a Content-Length (and no Transfer-Encoding)",
                   .hint = "send the body in one piece, {} for none",
                   .allow = {}};
  }
  const std::string length = req.get_header_value("Content-Length");
  std::size_t bytes = 0;
  const auto [end, ec] = std::from_chars(length.data(), length.data() + length.size(), bytes);
  if (ec != std::errc() || end != length.data() + length.size() || bytes > max_body_bytes) {
    return Refusal{.status = 413,
                   .error = "the body is over " + std::to_string(max_body_bytes) + " bytes",
                   .hint = "a pause is a small JSON object: {\"for_s\": 600, \"devices\": [0]}",
                   .allow = {}};
  }
  return std::nullopt;
}

}  // namespace

auto is_write_path(std::string_view path) -> bool {
  return path == kPausePath || path == kResumePath;
}

auto check_write(const httplib::Request& req, std::string_view token, bool tls, std::size_t max_body_bytes)
    -> std::optional<Refusal> {
  if (req.method != "POST") {
    return Refusal{.status = 405,
                   .error = "method " + req.method + " is not allowed on " + req.path,
                   .hint = "use POST with a JSON body",
                   .allow = "POST"};
  }
  if (auto refused = check_origin(req, token, tls)) return refused;
  return check_body(req, max_body_bytes);
}

}  // namespace solscope::server::detail
