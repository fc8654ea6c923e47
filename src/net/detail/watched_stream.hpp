// The stream every request of net/detail/guarded_request.hpp reads and writes through: a non-blocking socket
// (plain, or TLS through OpenSSL's SSL object that cpp-httplib set up), waited on in slices of
// RequestWatch::slice_s(), so that a stop, the total deadline and the idle timeout are each seen within one
// slice, and the response head counted against its limits.
#pragma once

#include <httplib.h>

#include <array>
#include <cstddef>

#include "net/detail/guarded_request.hpp"

namespace solscope::net::detail {

/// OpenSSL's SSL, or void in a build without TLS (then always null).
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
using TlsHandle = SSL;
#else
using TlsHandle = void;
#endif

class WatchedStream final : public httplib::Stream {
 public:
  /// `fd` is made non-blocking; `tls` null for plain HTTP.
  WatchedStream(int fd, TlsHandle* tls, RequestWatch& watch);

  auto is_readable() const -> bool override;
  auto is_writable() const -> bool override;
  /// Up to `size` bytes; 0 at the end of the answer; -1 on an error or once the watch says stop (stop flag,
  /// deadline, idle timeout, a head limit).
  auto read(char* ptr, std::size_t size) -> ssize_t override;
  /// Up to `size` bytes sent; -1 as read().
  auto write(const char* ptr, std::size_t size) -> ssize_t override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  auto socket() const -> socket_t override { return fd_; }

 private:
  /// Waits up to one slice for `events`; 1 ready, 0 not yet, -1 the watch says stop or poll failed.
  auto wait(short events) -> int;
  /// One read from the socket (into buffer_) or from TLS (into ptr); -2 when it would block.
  auto read_once(char* ptr, std::size_t size) -> ssize_t;
  /// One write; -2 when it would block.
  auto write_once(const char* ptr, std::size_t size) -> ssize_t;

  int fd_;
  TlsHandle* tls_;
  RequestWatch& watch_;
  short tls_wants_ = 0;              ///< TLS: what OpenSSL waits for (POLLIN or POLLOUT)
  std::array<char, 4096> buffer_{};  ///< plain HTTP: bytes received, not yet read
  std::size_t buffer_begin_ = 0;
  std::size_t buffer_end_ = 0;
};

}  // namespace solscope::net::detail
