// HTTP GET and POST (a form, a JSON document) to a service on another machine (dcgm-exporter, a Prometheus
// server): a base URL, a bearer token and TLS, with the bounds every outgoing request keeps (http_client.hpp:
// connect, idle and total timeouts, head and body caps, a stop flag). Unlike http_client.hpp (discovery,
// loopback only), this client contacts the address the user gave on the command line, and nothing else.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "net/http_client.hpp"

namespace solscope::net {

/// Where a remote HTTP service is and how to reach it.
struct RemoteEndpoint {
  /// "http://HOST:PORT[/PREFIX]", "https://HOST:PORT[/PREFIX]", or "HOST:PORT" (= http). Without a port:
  /// 80 for http, 443 for https. IPv6 hosts in brackets: "http://[::1]:9090".
  std::string url;
  std::string token;               ///< bearer token sent as "Authorization: Bearer ..."; empty = none
  std::string ca_cert_path;        ///< https: PEM file of the CA to trust; empty = the system's CAs
  bool verify_tls = true;          ///< https: check the server's certificate and name (off only when asked)
  double connect_timeout_s = 2.0;  ///< 0.001-60 s
  double read_timeout_s = 10.0;    ///< idle: nothing received for this long, 0.001-600 s
  double total_timeout_s = 30.0;   ///< the whole request, connect to last byte, 0.001-3600 s
  std::size_t max_body_bytes = 64u << 20;  ///< larger bodies fail with ResourceExhausted
  /// One set: a request in flight ends within kStopPollS with Aborted (a stop signal, a source being
  /// stopped).
  StopFlags stop;
};

/// The parts of a RemoteEndpoint::url.
struct ParsedUrl {
  bool tls = false;    ///< https
  std::string host;    ///< without brackets
  int port = 0;        ///< 1-65535
  std::string prefix;  ///< path prefix without a trailing '/', e.g. "/prometheus"; empty for none
  /// "scheme://host:port" as cpp-httplib's Client takes it (brackets kept for IPv6).
  std::string origin;
};

/// Splits a URL as RemoteEndpoint::url describes; the one URL parser of every URL option (--prometheus,
/// --dcgm-exporter, --connect). Errors: InvalidArgument naming the URL and what is wrong (an unknown scheme,
/// no host, a port outside 1-65535, a query or fragment, user info such as "admin:s3cret@" before the host).
/// A message never shows user info: the URL is shown with everything up to its last '@' as "***", and the
/// hint names --prometheus-token-file (a bearer token in a file) instead.
[[nodiscard]] auto parse_url(std::string_view url) -> core::Result<ParsedUrl>;

/// A client for one remote service. One thread at a time.
class RemoteHttp {
 public:
  virtual ~RemoteHttp() = default;
  /// GET PREFIX + `path_and_query` (which starts with '/'). Any HTTP status is a response. Errors:
  /// Unavailable "no answer from URL: REASON" (refused, timed out per read, TLS failure, naming the URL) or
  /// "no complete answer from URL within N s" (the total timeout); ResourceExhausted when the head exceeds
  /// kMaxResponseHeadLines or kMaxResponseHeadBytes or the body max_body_bytes (naming the limit); Aborted
  /// when the stop flag cancelled it.
  [[nodiscard]] virtual auto get(std::string_view path_and_query) -> core::Result<HttpResponse> = 0;
  /// POST PREFIX + `path` with `body` of media type `content_type` (sent with its Content-Length). Answers
  /// and errors as get().
  [[nodiscard]] virtual auto post(std::string_view path, std::string_view body, std::string_view content_type)
      -> core::Result<HttpResponse> = 0;
  /// post() of an application/x-www-form-urlencoded body (already encoded: "a=1&b=2").
  [[nodiscard]] auto post_form(std::string_view path, std::string_view form) -> core::Result<HttpResponse> {
    return post(path, form, "application/x-www-form-urlencoded");
  }
  /// post() of a JSON document (`json`: its text), as application/json.
  [[nodiscard]] auto post_json(std::string_view path, std::string_view json) -> core::Result<HttpResponse> {
    return post(path, json, "application/json");
  }
  /// The service's URL, without the token, for messages: "https://prom.example:9090".
  [[nodiscard]] virtual auto describe() const -> std::string = 0;

 protected:
  RemoteHttp() = default;
  RemoteHttp(const RemoteHttp&) = default;
  auto operator=(const RemoteHttp&) -> RemoteHttp& = default;
};

/// The real client (cpp-httplib, with OpenSSL for https, under net/detail/guarded_request.hpp). Keeps its
/// connection alive between requests; follows no redirects; asks for an uncompressed body. Errors:
/// InvalidArgument from parse_url(), or for timeouts out of range; NotFound when ca_cert_path
/// is not a readable file; Unimplemented when https is asked of a build without TLS.
[[nodiscard]] auto make_remote_http(const RemoteEndpoint& endpoint)
    -> core::Result<std::unique_ptr<RemoteHttp>>;

}  // namespace solscope::net
