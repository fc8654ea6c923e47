// A raw TCP client for the server tests: sends bytes that a well-behaved HTTP client would never send.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace solscope::server::testing {

/// One TCP connection to 127.0.0.1:port, from `source` (another loopback address, e.g. "127.0.0.2", plays
/// another client; nullptr = any); closed on destruction.
class RawConnection {
 public:
  explicit RawConnection(std::uint16_t port, const char* source = nullptr) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (source != nullptr && fd_ >= 0) {
      sockaddr_in from{};
      from.sin_family = AF_INET;
      ::inet_pton(AF_INET, source, &from.sin_addr);
      if (::bind(fd_, reinterpret_cast<sockaddr*>(&from), sizeof(from)) != 0) return;
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  auto operator=(const RawConnection&) -> RawConnection& = delete;

  [[nodiscard]] auto connected() const -> bool { return connected_; }
  auto send(const std::string& bytes) -> bool {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
  }
  /// Reads until `stop_at` appears, the peer closes, or `timeout` passes.
  auto read_until(const std::string& stop_at, std::chrono::milliseconds timeout) -> std::string {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (received_.find(stop_at) == std::string::npos) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) break;
      received_.append(buf, static_cast<std::size_t>(n));
    }
    return received_;
  }
  /// Everything until the peer closes (or `timeout` passes).
  auto read_all(std::chrono::milliseconds timeout) -> std::string {
    return read_until(std::string(1, '\0') + "\x01end", timeout);
  }
  /// True once the peer closed its end (a read returns 0 or fails) within `timeout`.
  auto closed_by_peer(std::chrono::milliseconds timeout) -> bool {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return false;
    char buf[4096];
    const ssize_t n = ::recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
    if (n > 0) received_.append(buf, static_cast<std::size_t>(n));
    return n <= 0;
  }
  /// The status code of the response read so far ("HTTP/1.1 NNN ..."), or 0.
  auto status(std::chrono::milliseconds timeout) -> int {
    const std::string head = read_until("\r\n", timeout);
    if (!head.starts_with("HTTP/1.1 ") || head.size() < 12) return 0;
    return std::stoi(head.substr(9, 3));
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  std::string received_;
};

}  // namespace solscope::server::testing
