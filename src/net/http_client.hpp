// The HTTP seam of workload discovery and the dcgm-exporter suggestion: an interface that tests fill with a
// stub, and a real client on cpp-httplib that talks to loopback addresses only (loopback.hpp), so that
// nothing ever leaves the machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "net/loopback.hpp"

namespace solscope::net {

/// A completed HTTP exchange (any status code).
struct HttpResponse {
  int status = 0;    ///< HTTP status code, e.g. 200
  std::string body;  ///< response body, at most the client's size cap
};

/// Plain-HTTP GET. Implementations must be usable from one thread at a time; they need not be thread-safe.
class HttpClient {
 public:
  virtual ~HttpClient() = default;
  /// GET http://host:port/path. Errors: Unavailable when the connection fails or times out (naming host, port
  /// and path), PermissionDenied when the host is not a loopback address (real client), ResourceExhausted
  /// when the body exceeds the size cap.
  [[nodiscard]] virtual auto get(std::string_view host, std::uint16_t port, std::string_view path)
      -> core::Result<HttpResponse> = 0;
};

/// Limits of the real client.
struct HttpClientLimits {
  double connect_timeout_s = 1.0;          ///< connect timeout, 0.001-10 s
  double read_timeout_s = 2.0;             ///< per-read timeout, 0.001-10 s
  std::size_t max_body_bytes = 16u << 20;  ///< larger bodies fail with ResourceExhausted
};

/// The real client (cpp-httplib). It refuses every host that is_loopback_host() rejects
/// (LoopbackForm::Address: literal addresses only), follows no redirects, sends no credentials, and asks for
/// an uncompressed body.
[[nodiscard]] auto make_loopback_http_client(HttpClientLimits limits = {}) -> std::unique_ptr<HttpClient>;

}  // namespace solscope::net
