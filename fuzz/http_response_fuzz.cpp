// libFuzzer target: an HTTP server's answer as solscope's clients read it. cpp-httplib 0.11 parses the status
// line, the header fields and the body framing itself; what is solscope's own is the guard around it
// (net/detail/guarded_request.hpp, watched_stream.hpp): the head counted against kMaxResponseHeadLines and
// kMaxResponseHeadBytes, the body cap, the deadlines and the error each cut gives. So the whole path is
// driven: the input is sent as the whole answer on a loopback connection (then the server closes it), and the
// loopback client reads it with a 4 KiB body cap. A finding is a crash, a sanitizer report, a hang past the 2
// s deadline, memory past the run's RSS limit, or (abort) a body over its cap or a head-limit error that does
// not name the limit.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>

#include "net/http_client.hpp"

namespace {

constexpr std::size_t kBodyCap = 4096;

/// The fuzzer's listening socket on 127.0.0.1 (opened once).
auto listener(std::uint16_t& port) -> int {
  static int fd = -1;
  static std::uint16_t bound = 0;
  if (fd < 0) {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 4) != 0) {
      std::abort();
    }
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    bound = ntohs(addr.sin_port);
  }
  port = bound;
  return fd;
}

/// Accepts the client, reads its request head, sends `answer` and closes.
void serve_once(int listen_fd, const std::uint8_t* data, std::size_t size) {
  pollfd p{listen_fd, POLLIN, 0};
  if (::poll(&p, 1, 2000) <= 0) return;  // the client gave up before connecting
  const int fd = ::accept(listen_fd, nullptr, nullptr);
  if (fd < 0) return;
  std::string head;
  char c = 0;
  while (head.find("\r\n\r\n") == std::string::npos && ::recv(fd, &c, 1, 0) == 1) head += c;
  for (std::size_t at = 0; at < size;) {
    const ssize_t n = ::send(fd, data + at, size - at, MSG_NOSIGNAL);
    if (n <= 0) break;
    at += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

auto contains(const std::string& text, const std::string& part) -> bool {
  return text.find(part) != std::string::npos;
}

}  // namespace

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int {
  using solscope::net::kMaxResponseHeadBytes;
  using solscope::net::kMaxResponseHeadLines;
  std::uint16_t port = 0;
  const int listen_fd = listener(port);
  auto client = solscope::net::make_loopback_http_client(
      {.connect_timeout_s = 1, .read_timeout_s = 1, .total_timeout_s = 2, .max_body_bytes = kBodyCap});
  std::thread server([&] { serve_once(listen_fd, data, size); });
  const auto answer = client->get("127.0.0.1", port, "/metrics");
  server.join();
  if (answer && answer->body.size() > kBodyCap) std::abort();
  if (!answer && answer.error().code == solscope::core::ErrorCode::ResourceExhausted) {
    const std::string& m = answer.error().message;
    const bool named = contains(m, std::to_string(kMaxResponseHeadLines) + " header lines") ||
                       contains(m, std::to_string(kMaxResponseHeadBytes) + " bytes") ||
                       contains(m, std::to_string(kBodyCap) + " bytes");
    if (!named) std::abort();
  }
  return 0;
}
