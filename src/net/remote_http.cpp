#include "net/remote_http.hpp"

#include <httplib.h>  // CPPHTTPLIB_OPENSSL_SUPPORT

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <system_error>

#include "net/detail/guarded_request.hpp"

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

/// The hint for an error of a request to a remote service.
auto with_hint(core::Error error) -> core::Error {
  if (error.code == core::ErrorCode::Unavailable) {
    error.hint = "check the address and that the service is up and reachable from here";
  } else if (error.code == core::ErrorCode::ResourceExhausted) {
    error.hint =
        "check that the URL names the service; for a query, narrow it (a selector, a shorter window "
        "or a larger step)";
  }
  return error;
}

class HttplibRemote final : public RemoteHttp {
 public:
  HttplibRemote(const RemoteEndpoint& endpoint, ParsedUrl url)
      : url_(std::move(url)),
        client_(
            detail::make_guarded_client(url_.tls, url_.host, url_.port,
                                        detail::RequestBounds{.connect_timeout_s = endpoint.connect_timeout_s,
                                                              .read_timeout_s = endpoint.read_timeout_s,
                                                              .total_timeout_s = endpoint.total_timeout_s,
                                                              .max_body_bytes = endpoint.max_body_bytes,
                                                              .stop = endpoint.stop},
                                        true)) {
    if (!endpoint.token.empty()) client_->set_bearer_token(endpoint.token);
    if (url_.tls) client_->set_tls(endpoint.ca_cert_path, endpoint.verify_tls);
  }

  auto get(std::string_view path_and_query) -> core::Result<HttpResponse> override {
    auto response = client_->send("GET", url_.prefix + std::string(path_and_query), {}, {});
    if (!response) return core::fail(with_hint(response.error()));
    return response;
  }

  auto post(std::string_view path, std::string_view body, std::string_view content_type)
      -> core::Result<HttpResponse> override {
    auto response =
        client_->send("POST", url_.prefix + std::string(path), std::string(body), std::string(content_type));
    if (!response) return core::fail(with_hint(response.error()));
    return response;
  }

  auto describe() const -> std::string override { return url_.origin + url_.prefix; }

 private:
  ParsedUrl url_;
  std::unique_ptr<detail::GuardedClient> client_;
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
  if (!in(endpoint.connect_timeout_s, 0.001, 60) || !in(endpoint.read_timeout_s, 0.001, 600) ||
      !in(endpoint.total_timeout_s, 0.001, 3600)) {
    return core::fail(
        core::ErrorCode::InvalidArgument,
        "HTTP timeouts out of range (connect 0.001-60 s, read 0.001-600 s, total 0.001-3600 s)");
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
