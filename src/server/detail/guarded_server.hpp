// cpp-httplib's Server (or SSLServer) with each connection served under the daemon's limits (private to
// src/server): a cap of connections per client address, an absolute deadline for the whole request (TLS
// handshake included), no byte ranges (docs/http-api.md "Limits"), no compression by cpp-httplib (the routes
// compress, body_encoding.hpp), and every connection cut on stop().
//
// cpp-httplib 0.11 applies its read timeout per recv and has no hook between accept and the request, so the
// connection's handling (process_and_close_socket, virtual) is replaced here; parsing, routing and writing
// stay the library's (process_request).
#pragma once

#include <fcntl.h>
#include <httplib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "server/detail/body_encoding.hpp"
#include "server/detail/connection_registry.hpp"
#include "server/detail/deadline_stream.hpp"

namespace solscope::server::detail {

/// What every connection is held to.
struct ConnectionLimits {
  std::chrono::milliseconds request_deadline{5'000};  ///< from accept to the end of the request's headers
  std::chrono::milliseconds write_timeout{5'000};     ///< longest wait for the client to take any byte
};

/// Sends the refusal of a connection over its address's cap (plain HTTP only: 429 with Retry-After).
void send_refusal(int fd, const std::string& address);

/// Request setup common to plain and TLS connections: byte ranges are ignored (the whole body is sent, 200,
/// with `Accept-Ranges: none` on HEAD), so that no request makes a multipart answer many times the size of
/// the resource.
void drop_ranges(httplib::Request& req);

/// Shuts down and closes a connection's socket when it goes out of scope.
struct ClosedAtExit {
  explicit ClosedAtExit(int f) : fd(f) {}
  int fd;
  ClosedAtExit(const ClosedAtExit&) = delete;
  auto operator=(const ClosedAtExit&) -> ClosedAtExit& = delete;
  ~ClosedAtExit();
};

/// `Base` is httplib::Server or httplib::SSLServer; its constructor's arguments follow `registry` and
/// `limits`, which must outlive the server.
template <class Base>
class GuardedServer final : public Base {
 public:
  template <class... Args>
  GuardedServer(ConnectionRegistry& registry, ConnectionLimits limits, Args&&... args)
      : Base(std::forward<Args>(args)...), registry_(registry), limits_(limits) {}

 private:
  static constexpr bool kTls = std::is_base_of_v<httplib::SSLServer, Base>;

  auto process_and_close_socket(socket_t sock) -> bool override {
    const auto deadline = Clock::now() + limits_.request_deadline;
    const ClosedAtExit closed{sock};
    ::fcntl(sock, F_SETFL, ::fcntl(sock, F_GETFL, 0) | O_NONBLOCK);
    Endpoint peer = socket_endpoint(sock, EndpointSide::Peer);  // looked up once per connection
    std::optional<ConnectionRegistry::Slot> slot;
    const Admission admission = registry_.admit(sock, peer.address, slot);
    if (admission != Admission::Admitted) {
      if (admission == Admission::TooManyFromAddress && !kTls) send_refusal(sock, peer.address);
      return false;
    }
    if constexpr (kTls) {
      SSL* ssl = SSL_new(this->ssl_context());
      if (ssl == nullptr) return false;
      const std::unique_ptr<SSL, void (*)(SSL*)> owner(ssl, SSL_free);
      SSL_set_fd(ssl, sock);
      if (!tls_accept(ssl, sock, deadline)) return false;
      const bool ok = serve(DeadlineStream(sock, ssl, std::move(peer), deadline, limits_.write_timeout), ssl);
      if (ok) (void)SSL_shutdown(ssl);
      return ok;
    } else {
      return serve(DeadlineStream(sock, nullptr, std::move(peer), deadline, limits_.write_timeout), nullptr);
    }
  }

  /// One request, then the connection closes (docs/http-api.md "Limits").
  auto serve(DeadlineStream&& stream, SSL* ssl) -> bool {
    bool connection_closed = false;
    return this->process_request(stream, true, connection_closed, [ssl](httplib::Request& req) {
      drop_ranges(req);
      take_accept_encoding(req);
      if constexpr (kTls) {
        req.ssl = ssl;
      } else {
        (void)ssl;  // plain HTTP: no TLS session (clang's -Wunused-lambda-capture)
      }
    });
  }

  ConnectionRegistry& registry_;
  ConnectionLimits limits_;
};

}  // namespace solscope::server::detail
