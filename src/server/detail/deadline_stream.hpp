// The byte stream of one server connection (private to src/server): a non-blocking socket, optionally under
// TLS, whose reads all end by one absolute deadline (the whole request, TLS handshake included, must arrive
// by then: a client trickling a byte a second cannot hold a connection longer) and whose writes each end when
// the client takes nothing for `write_timeout`.
#pragma once

#include <httplib.h>
#include <openssl/ssl.h>

#include <chrono>
#include <string>
#include <utility>

#include "server/detail/connection_registry.hpp"

namespace solscope::server::detail {

using Clock = std::chrono::steady_clock;

/// A connection as cpp-httplib's Server::process_request reads and writes it. `fd` must be non-blocking;
/// `ssl` (may be nullptr: plain HTTP) has completed its handshake on `fd`. Neither is owned. `peer` is the
/// client's end of `fd` as the caller looked it up once (socket_endpoint).
class DeadlineStream final : public httplib::Stream {
 public:
  DeadlineStream(int fd, SSL* ssl, Endpoint peer, Clock::time_point read_deadline,
                 std::chrono::milliseconds write_timeout)
      : fd_(fd),
        ssl_(ssl),
        peer_(std::move(peer)),
        read_deadline_(read_deadline),
        write_timeout_(write_timeout) {}

  /// True when bytes can be read before the read deadline.
  [[nodiscard]] auto is_readable() const -> bool override;
  /// True when the peer is still there and its socket takes bytes within the write timeout.
  [[nodiscard]] auto is_writable() const -> bool override;
  /// Up to `size` bytes; 0 at the peer's end; -1 on error or past the read deadline.
  auto read(char* ptr, size_t size) -> ssize_t override;
  /// Some of `size` bytes (>= 1); -1 on error or when nothing was taken within the write timeout.
  auto write(const char* ptr, size_t size) -> ssize_t override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  [[nodiscard]] auto socket() const -> socket_t override { return fd_; }

 private:
  int fd_;
  SSL* ssl_;
  Endpoint peer_;
  Clock::time_point read_deadline_;
  std::chrono::milliseconds write_timeout_;
};

/// Waits until `fd` is ready for `events` (POLLIN/POLLOUT) or `deadline` passes. False on timeout, error or
/// hang-up without data.
[[nodiscard]] auto wait_ready(int fd, short events, Clock::time_point deadline) -> bool;

/// Runs the server side of the TLS handshake of `ssl` on non-blocking `fd`, ending by `deadline`.
[[nodiscard]] auto tls_accept(SSL* ssl, int fd, Clock::time_point deadline) -> bool;

}  // namespace solscope::server::detail
