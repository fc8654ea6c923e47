#include "net/remote_http.hpp"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <system_error>

namespace solscope::net {
namespace {

/// Where the authority starts: after "SCHEME://" when the text before the first "://" is a scheme (RFC 3986
/// section 3.1: a letter, then letters, digits, '+', '-' or '.'), else at 0 (a password may hold "://").
auto authority_start(std::string_view url) -> std::size_t {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0) return 0;
  const std::string_view scheme = url.substr(0, scheme_end);
  const auto scheme_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '.';
  };
  if (std::isalpha(static_cast<unsigned char>(scheme.front())) == 0 ||
      !std::all_of(scheme.begin(), scheme.end(), scheme_char)) {
    return 0;
  }
  return scheme_end + 3;
}

/// `url` as a message may show it: everything between the scheme and the last '@' (user info, a password
/// among it, even one holding '/', '?', '#' or "://") becomes "***".
auto shown(std::string_view url) -> std::string {
  const std::size_t start = authority_start(url);
  const auto at = url.rfind('@');
  if (at == std::string_view::npos || at < start) return std::string(url);
  return std::string(url.substr(0, start)) + "***" + std::string(url.substr(at));
}

auto bad_url(std::string_view url, std::string_view why) -> core::Error {
  return core::Error{core::ErrorCode::InvalidArgument, "bad URL '" + shown(url) + "': " + std::string(why),
                     "give http://HOST:PORT or https://HOST:PORT, optionally with a path prefix"};
}

/// The refusal of user info ("user:password@" before the host): solscope never sends it, and a message never
/// shows it.
auto user_info_refused(std::string_view url) -> core::Error {
  return core::Error{core::ErrorCode::InvalidArgument,
                     "bad URL '" + shown(url) + "': it carries a user name or password (USER:PASSWORD@HOST)",
                     "remove it from the URL; solscope sends a bearer token read from a file instead: "
                     "--prometheus-token-file FILE for Prometheus, --dcgm-exporter-token-file FILE for "
                     "dcgm-exporter"};
}

/// Splits "host:port" / "[v6]:port" / "host"; port -1 when absent.
auto split_authority(std::string_view authority, std::string& host, int& port) -> bool {
  std::string_view port_text;
  if (authority.starts_with('[')) {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return false;
    host = std::string(authority.substr(1, close - 1));
    const std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return false;
      port_text = rest.substr(1);
      if (port_text.empty()) return false;
    }
  } else {
    const auto colon = authority.rfind(':');
    host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port_text = authority.substr(colon + 1);
      if (port_text.empty()) return false;
    }
  }
  port = -1;
  if (!port_text.empty()) {
    const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc{} || end != port_text.data() + port_text.size()) return false;
  }
  return true;
}

void set_timeout(httplib::Client& client, double connect_s, double read_s) {
  const auto split = [](double s) {
    const auto sec = static_cast<time_t>(s);
    return std::pair{sec, static_cast<time_t>(std::lround((s - static_cast<double>(sec)) * 1e6))};
  };
  const auto [cs, cus] = split(connect_s);
  const auto [rs, rus] = split(read_s);
  client.set_connection_timeout(cs, cus);
  client.set_read_timeout(rs, rus);
  client.set_write_timeout(cs, cus);
}

class HttplibRemote final : public RemoteHttp {
 public:
  HttplibRemote(RemoteEndpoint endpoint, ParsedUrl url)
      : endpoint_(std::move(endpoint)), url_(std::move(url)), client_(url_.origin) {
    set_timeout(client_, endpoint_.connect_timeout_s, endpoint_.read_timeout_s);
    client_.set_follow_location(false);
    client_.set_keep_alive(true);
    if (!endpoint_.token.empty()) client_.set_bearer_token_auth(endpoint_.token);
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
    if (!endpoint_.ca_cert_path.empty()) client_.set_ca_cert_path(endpoint_.ca_cert_path.c_str());
    client_.enable_server_certificate_verification(endpoint_.verify_tls);
#endif
  }

  auto get(std::string_view path_and_query) -> core::Result<HttpResponse> override {
    const std::string path = url_.prefix + std::string(path_and_query);
    std::string body;
    bool too_big = false;
    const httplib::Headers headers = {{"Accept-Encoding", "identity"}};
    auto result = client_.Get(path, headers, [&](const char* data, std::size_t length) {
      if (body.size() + length > endpoint_.max_body_bytes) {
        too_big = true;
        return false;
      }
      body.append(data, length);
      return true;
    });
    if (too_big) {
      return core::fail(
          core::ErrorCode::ResourceExhausted,
          describe() + path + " answered more than " + std::to_string(endpoint_.max_body_bytes) + " bytes",
          "narrow the query (a selector, a shorter window or a larger step)");
    }
    if (!result) {
      return core::fail(core::ErrorCode::Unavailable,
                        "no answer from " + describe() + path + ": " + httplib::to_string(result.error()),
                        "check the address and that the service is up and reachable from here");
    }
    return HttpResponse{result->status, std::move(body)};
  }

  auto describe() const -> std::string override {
    return url_.origin + url_.prefix;
  }

 private:
  RemoteEndpoint endpoint_;
  ParsedUrl url_;
  httplib::Client client_;
};

}  // namespace

auto parse_url(std::string_view url) -> core::Result<ParsedUrl> {
  ParsedUrl out;
  std::string_view rest = url;
  if (const std::size_t start = authority_start(url); start > 0) {
    const std::string_view scheme = url.substr(0, start - 3);
    if (scheme == "https") {
      out.tls = true;
    } else if (scheme != "http") {
      return core::fail(bad_url(url, "unknown scheme '" + std::string(scheme) + "'"));
    }
    rest = rest.substr(start);
  }
  // Before any other check: user info would otherwise be split at its ':' as a host and a port.
  if (rest.substr(0, rest.find('/')).find('@') != std::string_view::npos)
    return core::fail(user_info_refused(url));
  if (rest.find_first_of("?#") != std::string_view::npos) {
    return core::fail(bad_url(url, "a query or fragment is not allowed"));
  }
  const auto slash = rest.find('/');
  const std::string_view authority = rest.substr(0, slash);
  std::string prefix = slash == std::string_view::npos ? std::string() : std::string(rest.substr(slash));
  while (prefix.ends_with('/')) prefix.pop_back();
  if (!split_authority(authority, out.host, out.port) || out.host.empty()) {
    return core::fail(bad_url(url, "no host, or a port that is not a number"));
  }
  if (out.port == -1) out.port = out.tls ? 443 : 80;
  if (out.port < 1 || out.port > 65535) return core::fail(bad_url(url, "port outside 1-65535"));
  out.prefix = std::move(prefix);
  const bool v6 = out.host.find(':') != std::string::npos;
  out.origin = std::string(out.tls ? "https://" : "http://") + (v6 ? "[" + out.host + "]" : out.host) + ":" +
               std::to_string(out.port);
  return out;
}

auto make_remote_http(const RemoteEndpoint& endpoint) -> core::Result<std::unique_ptr<RemoteHttp>> {
  auto url = parse_url(endpoint.url);
  if (!url) return core::propagate(url);
  const auto in = [](double v, double lo, double hi) { return std::isfinite(v) && v >= lo && v <= hi; };
  if (!in(endpoint.connect_timeout_s, 0.001, 60) || !in(endpoint.read_timeout_s, 0.001, 600)) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "HTTP timeouts out of range (connect 0.001-60 s, read "
                      "0.001-600 s)");
  }
#ifndef CPPHTTPLIB_OPENSSL_SUPPORT
  if (url->tls) {
    return core::fail(core::ErrorCode::Unimplemented,
                      "this build of solscope has no TLS: cannot reach " + endpoint.url,
                      "use http://, or a build with cpp-httplib's OpenSSL support");
  }
#endif
  if (!endpoint.ca_cert_path.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(endpoint.ca_cert_path, ec)) {
      return core::fail(core::ErrorCode::NotFound,
                        "CA file " + endpoint.ca_cert_path + " is not a readable file",
                        "give the PEM file of the CA that signed the server's certificate");
    }
  }
  return std::unique_ptr<RemoteHttp>(std::make_unique<HttplibRemote>(endpoint, std::move(*url)));
}

}  // namespace solscope::net
