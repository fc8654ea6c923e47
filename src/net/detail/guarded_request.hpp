// The one mechanism that bounds every outgoing HTTP request (net/http_client.hpp, "The bounds every outgoing
// request keeps"): a cpp-httplib client (plain or TLS) whose connect, reads and writes all pass through a
// RequestWatch. cpp-httplib 0.11 reads the response head itself, one byte per read, and keeps every header
// line it is sent; it offers a per-read timeout only. The watch therefore
// - wraps the client's stream (ClientImpl::process_socket) and counts the head's bytes and lines until the
//   response handler says the head is complete, refusing the read that passes a limit;
// - cuts every wait into slices of at most kStopPollS (the client's own read and write timeouts are the
// slice),
//   looking at the stop flag and the total deadline between slices, and keeps the caller's per-read timeout
//   as an idle timer of its own;
// - connects itself (ClientImpl::create_and_connect_socket), polling the non-blocking connect in slices too.
// Not covered: the name lookup (getaddrinfo has no timeout) and the TLS handshake, which keeps cpp-httplib's
// connect timeout.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/result.hpp"
#include "net/http_client.hpp"

namespace solscope::net::detail {

/// What bounds one request. Times in seconds, > 0.
struct RequestBounds {
  double connect_timeout_s = 1.0;          ///< one connect, all addresses of the name together
  double read_timeout_s = 2.0;             ///< idle: no byte received (or sent) for this long
  double total_timeout_s = 4.0;            ///< the whole request: first connect to last body byte
  std::size_t max_body_bytes = 16u << 20;  ///< decoded body bytes
  std::size_t max_head_lines = kMaxResponseHeadLines;
  std::size_t max_head_bytes = kMaxResponseHeadBytes;
  StopFlags stop;  ///< one set = cancel
};

/// Why a request was cut short by its bounds (None: it was not).
enum class Cut : std::uint8_t { None, Stopped, Deadline, Idle, HeadLines, HeadBytes, BodyBytes };

/// The clock, counters and verdict of one request. One thread.
class RequestWatch {
 public:
  using Clock = std::chrono::steady_clock;

  explicit RequestWatch(const RequestBounds& bounds) : bounds_(bounds) {}

  /// Starts a request: the deadline is total_timeout_s from now; counters and verdict cleared.
  void begin();
  /// False (and the verdict set) once the stop flag is set or the deadline has passed.
  [[nodiscard]] auto running() -> bool;
  /// Records that bytes moved now (resets the idle timer).
  void active() { last_active_ = Clock::now(); }
  /// True when nothing moved for read_timeout_s (the verdict is then Idle).
  [[nodiscard]] auto idle() -> bool;
  /// Counts `n` bytes of the response head; false (verdict set) past a head limit. Ignored once the head is
  /// complete.
  [[nodiscard]] auto count_head(const char* data, std::size_t n) -> bool;
  void head_complete() { head_done_ = true; }
  void cut(Cut why) { cut_ = why; }
  /// Why the connect failed, for the message ("connection refused", ...).
  void set_connect_error(std::string why) { connect_error_ = std::move(why); }

  [[nodiscard]] auto verdict() const -> Cut { return cut_; }
  [[nodiscard]] auto bounds() const -> const RequestBounds& { return bounds_; }
  /// The slice every wait is cut into: min(kStopPollS, read and connect timeouts), in seconds.
  [[nodiscard]] auto slice_s() const -> double;
  /// Seconds left until the deadline (0 when past it).
  [[nodiscard]] auto left_s() const -> double;
  [[nodiscard]] auto connect_error() const -> const std::string& { return connect_error_; }

 private:
  RequestBounds bounds_;
  Clock::time_point deadline_{};
  Clock::time_point last_active_{};
  std::size_t head_bytes_ = 0;
  std::size_t head_lines_ = 0;
  bool head_done_ = false;
  Cut cut_ = Cut::None;
  std::string connect_error_;
};

/// A client of one origin whose every request keeps its RequestBounds. Keeps the connection alive between
/// requests when asked. One thread at a time.
class GuardedClient {
 public:
  virtual ~GuardedClient() = default;
  /// Sends `method` `path` (GET without a body; POST with `body` of `content_type`) with the extra `headers`
  /// (name, value pairs) and reads the answer, asking for an uncompressed body. Any HTTP status is a
  /// response. Errors: request_error().
  [[nodiscard]] virtual auto send(const std::string& method, const std::string& path, const std::string& body,
                                  const std::string& content_type) -> core::Result<HttpResponse> = 0;
  /// The cpp-httplib settings of the client (token, CA, verification) are set through these.
  virtual void set_bearer_token(const std::string& token) = 0;
  virtual void set_tls(const std::string& ca_cert_path, bool verify) = 0;

 protected:
  GuardedClient() = default;
  GuardedClient(const GuardedClient&) = default;
  auto operator=(const GuardedClient&) -> GuardedClient& = default;
};

/// A client for http(s)://host:port (host without brackets). `keep_alive` keeps one connection between
/// requests. https in a build without TLS is the caller's to refuse first.
[[nodiscard]] auto make_guarded_client(bool tls, const std::string& host, int port,
                                       const RequestBounds& bounds, bool keep_alive)
    -> std::unique_ptr<GuardedClient>;

/// The error of a request that failed: what cut it (watch's verdict) or cpp-httplib's reason (`reason`), for
/// `url` (the origin and path, no token). Codes: Aborted (stopped), Unavailable (no connection, the total
/// deadline, the idle timeout, a broken answer), ResourceExhausted (a head or body limit, named with its
/// value). No hint: the caller adds its own.
[[nodiscard]] auto request_error(const RequestWatch& watch, const std::string& url, const std::string& reason)
    -> core::Error;

/// Connects a TCP socket to host:port under `watch` (its slices, stop flag, deadline and connect timeout):
/// the socket, blocking, or -1 with watch.connect_error() (or its verdict) saying why.
[[nodiscard]] auto connect_guarded(const std::string& host, int port, RequestWatch& watch) -> int;

}  // namespace solscope::net::detail
