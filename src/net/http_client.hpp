// The HTTP seam of workload discovery and the dcgm-exporter suggestion: an interface that tests fill with a
// stub, and a real client on cpp-httplib that talks to loopback addresses only (loopback.hpp), so that
// nothing ever leaves the machine.
#pragma once

#include <atomic>
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
  /// GET http://host:port/path. Errors: Unavailable when the connection fails or times out, per read or in
  /// total (naming host, port and path), PermissionDenied when the host is not a loopback address (real
  /// client), ResourceExhausted when the head or the body exceeds its cap (naming the cap), Aborted when the
  /// stop flag cancelled it.
  [[nodiscard]] virtual auto get(std::string_view host, std::uint16_t port, std::string_view path)
      -> core::Result<HttpResponse> = 0;
};

/// The bounds every outgoing request of both clients keeps (this one and remote_http.hpp), enforced by one
/// mechanism (net/detail/guarded_request.hpp) whatever the server does:
/// - the response head (status line and header fields) at most kMaxResponseHeadLines lines and
///   kMaxResponseHeadBytes bytes, else ResourceExhausted naming the limit (cpp-httplib itself keeps every
///   header line it is sent);
/// - a stop flag, when the caller gives one, cancels a request in flight within kStopPollS (Aborted);
/// - a total deadline from the first connect attempt to the last body byte (Unavailable), besides the
///   per-read idle timeout: a server that trickles one byte per read never holds a request longer.
inline constexpr std::size_t kMaxResponseHeadLines = 100;
inline constexpr std::size_t kMaxResponseHeadBytes = 64u << 10;
/// How often a request in flight looks at its stop flag and deadline, in seconds.
inline constexpr double kStopPollS = 0.1;

/// The flags that cancel a request in flight: any one of them, once set (a null one is unused), e.g. the
/// process's stop flag and the flag of the object that owns the client. They must outlive the client.
struct StopFlags {
  const std::atomic<bool>* first = nullptr;
  const std::atomic<bool>* second = nullptr;
  [[nodiscard]] auto raised() const -> bool {
    return (first != nullptr && first->load()) || (second != nullptr && second->load());
  }
};

/// Limits of the real client.
struct HttpClientLimits {
  double connect_timeout_s = 1.0;          ///< connect timeout, 0.001-10 s
  double read_timeout_s = 2.0;             ///< per-read (idle) timeout, 0.001-10 s
  double total_timeout_s = 4.0;            ///< the whole request, connect to last byte, 0.001-60 s
  std::size_t max_body_bytes = 16u << 20;  ///< larger bodies fail with ResourceExhausted
  StopFlags stop;  ///< one set: a request in flight ends within kStopPollS with Aborted
};

/// The real client (cpp-httplib). It refuses every host that is_loopback_host() rejects
/// (LoopbackForm::Address: literal addresses only), follows no redirects, sends no credentials, and asks for
/// an uncompressed body.
[[nodiscard]] auto make_loopback_http_client(HttpClientLimits limits = {}) -> std::unique_ptr<HttpClient>;

}  // namespace solscope::net
