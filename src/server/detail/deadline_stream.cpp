#include "server/detail/deadline_stream.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <utility>

#include "server/detail/connection_registry.hpp"

namespace solscope::server::detail {
namespace {

/// After a TLS call that returned `ret` <= 0: waits for what OpenSSL wants. False when the call failed.
auto wait_for_tls(SSL* ssl, int ret, int fd, Clock::time_point deadline) -> bool {
  switch (SSL_get_error(ssl, ret)) {
    case SSL_ERROR_WANT_READ:
      return wait_ready(fd, POLLIN, deadline);
    case SSL_ERROR_WANT_WRITE:
      return wait_ready(fd, POLLOUT, deadline);
    default:
      return false;
  }
}

auto clamp_int(size_t size) -> int {
  return static_cast<int>(std::min<size_t>(size, INT_MAX));
}

}  // namespace

auto wait_ready(int fd, short events, Clock::time_point deadline) -> bool {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, INT_MAX)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if ((p.revents & events) != 0) return true;
    return false;  // POLLERR, POLLHUP without data, POLLNVAL
  }
}

auto tls_accept(SSL* ssl, int fd, Clock::time_point deadline) -> bool {
  for (;;) {
    const int ret = SSL_accept(ssl);
    if (ret == 1) return true;
    if (!wait_for_tls(ssl, ret, fd, deadline)) return false;
  }
}

auto DeadlineStream::is_readable() const -> bool {
  if (ssl_ != nullptr && SSL_pending(ssl_) > 0) return true;
  return wait_ready(fd_, POLLIN, read_deadline_);
}

auto DeadlineStream::is_writable() const -> bool {
  if (!wait_ready(fd_, POLLOUT, Clock::now() + write_timeout_)) return false;
  // A peer that closed its end shows as readable with nothing to read.
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, 0) <= 0 || ssl_ != nullptr) return true;
  char byte = 0;
  return ::recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) != 0;
}

auto DeadlineStream::read(char* ptr, size_t size) -> ssize_t {
  for (;;) {
    if (Clock::now() >= read_deadline_) return -1;
    if (ssl_ != nullptr) {
      const int ret = SSL_read(ssl_, ptr, clamp_int(size));
      if (ret > 0) return ret;
      if (SSL_get_error(ssl_, ret) == SSL_ERROR_ZERO_RETURN) return 0;
      if (!wait_for_tls(ssl_, ret, fd_, read_deadline_)) return -1;
      continue;
    }
    const ssize_t n = ::recv(fd_, ptr, size, 0);
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
    if (!wait_ready(fd_, POLLIN, read_deadline_)) return -1;
  }
}

auto DeadlineStream::write(const char* ptr, size_t size) -> ssize_t {
  for (;;) {
    const auto deadline = Clock::now() + write_timeout_;
    if (ssl_ != nullptr) {
      const int ret = SSL_write(ssl_, ptr, clamp_int(size));
      if (ret > 0) return ret;
      if (!wait_for_tls(ssl_, ret, fd_, deadline)) return -1;
      continue;
    }
    const ssize_t n = ::send(fd_, ptr, size, MSG_NOSIGNAL);
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
    if (!wait_ready(fd_, POLLOUT, deadline)) return -1;
  }
}

void DeadlineStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  ip = peer_.address;
  port = peer_.port;
}

void DeadlineStream::get_local_ip_and_port(std::string& ip, int& port) const {
  Endpoint end = socket_endpoint(fd_, EndpointSide::Local);
  ip = std::move(end.address);
  port = end.port;
}

}  // namespace solscope::server::detail
