#include "server/detail/guarded_server.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "wire/json_text.hpp"

namespace solscope::server::detail {

/// Retry-After of a connection refused for its address (seconds): about one request deadline.
constexpr const char* kRefusedRetryAfterS = "5";

ClosedAtExit::~ClosedAtExit() {
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
}

void send_refusal(int fd, const std::string& address) {
  const nlohmann::json body{{"error", "too many connections from " + address},
                            {"hint", "close idle connections, or raise --max-connections-per-address"}};
  const std::string text = wire::json_text(body) + "\n";
  const std::string response = std::string("HTTP/1.1 429 Too Many Requests\r\n") +
                               "Content-Type: application/json\r\nRetry-After: " + kRefusedRetryAfterS +
                               "\r\nConnection: close\r\nContent-Length: " + std::to_string(text.size()) +
                               "\r\n\r\n" + text;
  // Best effort: the socket is non-blocking and the answer fits any send buffer. What the client sent so far
  // is read first: closing a socket with unread bytes resets the connection, and the answer with it.
  char discard[4096];
  while (::recv(fd, discard, sizeof(discard), MSG_DONTWAIT) > 0) {
  }
  (void)::send(fd, response.data(), response.size(), MSG_NOSIGNAL);
}

void drop_ranges(httplib::Request& req) {
  req.ranges.clear();
}

}  // namespace solscope::server::detail
