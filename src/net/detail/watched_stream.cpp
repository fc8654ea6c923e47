#include "net/detail/watched_stream.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>

namespace solscope::net::detail {
namespace {

auto would_block(int error) -> bool {
  return error == EAGAIN || error == EWOULDBLOCK || error == EINTR;
}

void set_blocking(int fd, bool blocking) {
  const int flags = fcntl(fd, F_GETFL, 0);
  if (flags >= 0) (void)fcntl(fd, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK);
}

/// Milliseconds of one wait: a slice, no longer than `left_s`, at least 1.
auto wait_ms(double slice_s, double left_s) -> int {
  return std::max(1, static_cast<int>(std::lround(std::min(slice_s, left_s) * 1e3)));
}

void address_of(int fd, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  auto* any = reinterpret_cast<sockaddr*>(&addr);
  ip.clear();
  port = 0;
  if ((peer ? getpeername(fd, any, &len) : getsockname(fd, any, &len)) != 0) return;
  char host[NI_MAXHOST];
  char serv[NI_MAXSERV];
  if (getnameinfo(any, len, host, sizeof host, serv, sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return;
  ip = host;
  port = std::atoi(serv);
}

/// Waits for one connect in flight; 0 connected, else the errno that failed it (ETIMEDOUT at `give_up`,
/// ECANCELED when the watch says stop).
auto finish_connect(int fd, RequestWatch& watch, RequestWatch::Clock::time_point give_up) -> int {
  for (;;) {
    if (!watch.running()) return ECANCELED;
    const double left = std::chrono::duration<double>(give_up - RequestWatch::Clock::now()).count();
    if (left <= 0) return ETIMEDOUT;
    pollfd p{fd, POLLOUT, 0};
    const int ready = ::poll(&p, 1, wait_ms(watch.slice_s(), std::min(left, watch.left_s())));
    if (ready < 0 && errno != EINTR) return errno;
    if (ready <= 0) continue;
    int error = 0;
    socklen_t len = sizeof error;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0) return errno;
    return error;
  }
}

}  // namespace

WatchedStream::WatchedStream(int fd, TlsHandle* tls, RequestWatch& watch)
    : fd_(fd), tls_(tls), watch_(watch) {
  set_blocking(fd_, false);
}

auto WatchedStream::is_readable() const -> bool {
  if (buffer_begin_ < buffer_end_) return true;
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
  if (tls_ != nullptr && SSL_pending(tls_) > 0) return true;
#endif
  pollfd p{fd_, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

auto WatchedStream::is_writable() const -> bool {
  pollfd p{fd_, POLLOUT, 0};
  return ::poll(&p, 1, 0) > 0;
}

auto WatchedStream::wait(short events) -> int {
  if (!watch_.running()) return -1;
  pollfd p{fd_, events, 0};
  const int ready = ::poll(&p, 1, wait_ms(watch_.slice_s(), watch_.left_s()));
  if (ready < 0) return errno == EINTR ? 0 : -1;
  if (ready == 0) return watch_.idle() ? -1 : 0;
  return 1;
}

auto WatchedStream::read_once(char* ptr, std::size_t size) -> ssize_t {
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
  if (tls_ != nullptr) {
    const int n = SSL_read(tls_, ptr, static_cast<int>(std::min<std::size_t>(size, INT_MAX)));
    if (n > 0) return n;
    switch (SSL_get_error(tls_, n)) {
      case SSL_ERROR_WANT_READ:
        tls_wants_ = POLLIN;
        return -2;
      case SSL_ERROR_WANT_WRITE:
        tls_wants_ = POLLOUT;
        return -2;
      case SSL_ERROR_ZERO_RETURN:
        return 0;
      default:
        return -1;
    }
  }
#endif
  (void)ptr;
  (void)size;
  const ssize_t n = ::recv(fd_, buffer_.data(), buffer_.size(), MSG_DONTWAIT);
  if (n < 0) return would_block(errno) ? -2 : -1;
  buffer_begin_ = 0;
  buffer_end_ = static_cast<std::size_t>(n);
  return n;
}

auto WatchedStream::read(char* ptr, std::size_t size) -> ssize_t {
  for (;;) {
    if (!watch_.running()) return -1;
    std::size_t got = 0;
    if (buffer_begin_ < buffer_end_) {
      got = std::min(size, buffer_end_ - buffer_begin_);
      std::memcpy(ptr, buffer_.data() + buffer_begin_, got);
      buffer_begin_ += got;
    } else {
      tls_wants_ = POLLIN;
      const ssize_t n = read_once(ptr, size);
      if (n == -2) {
        if (wait(tls_wants_) < 0) return -1;
        continue;
      }
      if (n <= 0) return n;
      if (tls_ != nullptr) got = static_cast<std::size_t>(n);
      if (tls_ == nullptr) continue;  // now in buffer_
    }
    watch_.active();
    if (!watch_.count_head(ptr, got)) return -1;
    return static_cast<ssize_t>(got);
  }
}

auto WatchedStream::write_once(const char* ptr, std::size_t size) -> ssize_t {
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
  if (tls_ != nullptr) {
    const int n = SSL_write(tls_, ptr, static_cast<int>(std::min<std::size_t>(size, INT_MAX)));
    if (n > 0) return n;
    const int error = SSL_get_error(tls_, n);
    if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
      tls_wants_ = error == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
      return -2;
    }
    return -1;
  }
#endif
  const ssize_t n = ::send(fd_, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n < 0) return would_block(errno) ? -2 : -1;
  return n;
}

auto WatchedStream::write(const char* ptr, std::size_t size) -> ssize_t {
  for (;;) {
    if (!watch_.running()) return -1;
    tls_wants_ = POLLOUT;
    const ssize_t n = write_once(ptr, size);
    if (n == -2) {
      if (wait(tls_wants_) < 0) return -1;
      continue;
    }
    if (n > 0) watch_.active();
    return n;
  }
}

void WatchedStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  address_of(fd_, true, ip, port);
}

void WatchedStream::get_local_ip_and_port(std::string& ip, int& port) const {
  address_of(fd_, false, ip, port);
}

auto connect_guarded(const std::string& host, int port, RequestWatch& watch) -> int {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    watch.set_connect_error(fmt::format("cannot resolve {}: {}", host, gai_strerror(rc)));
    return -1;
  }
  const auto give_up =
      RequestWatch::Clock::now() + std::chrono::duration_cast<RequestWatch::Clock::duration>(
                                       std::chrono::duration<double>(watch.bounds().connect_timeout_s));
  int error = ETIMEDOUT;
  int connected = -1;
  for (const addrinfo* a = found; a != nullptr && connected < 0 && error != ECANCELED; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      error = errno;
      continue;
    }
    error = ::connect(fd, a->ai_addr, a->ai_addrlen) == 0 ? 0 : errno;
    if (error == EINPROGRESS) error = finish_connect(fd, watch, give_up);
    if (error == 0) {
      set_blocking(fd, true);
      connected = fd;
    } else {
      ::close(fd);
    }
  }
  freeaddrinfo(found);
  if (connected < 0 && error != ECANCELED) {
    watch.set_connect_error(
        error == ETIMEDOUT ? fmt::format("connect timed out after {:g} s", watch.bounds().connect_timeout_s)
                           : std::string(std::strerror(error)));
  }
  return connected;
}

}  // namespace solscope::net::detail
