// The bounds every outgoing request keeps (net/http_client.hpp, net/detail/guarded_request.hpp), against
// hostile servers written here on raw loopback sockets: one that trickles (a byte every 0.4 s, so that no
// per-read timeout fires), one that never answers (a stop must cancel it), and ones that send headers without
// end. The deadlines are the tests' own (about 1 s), not the production values.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "net/http_client.hpp"
#include "net/remote_http.hpp"

namespace solscope::net {
namespace {

using Clock = std::chrono::steady_clock;

auto seconds_since(Clock::time_point t0) -> double {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// A one-connection-at-a-time TCP server on 127.0.0.1: reads each request's head, then runs `behave` on the
/// connection until it returns or the server is destroyed (`stopping` then reads true).
class RawServer {
 public:
  using Behaviour = std::function<void(int fd, const std::atomic<bool>& stopping)>;

  explicit RawServer(Behaviour behave) : behave_(std::move(behave)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(listen_fd_, 8), 0);
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~RawServer() {
    stopping_ = true;
    thread_.join();
    ::close(listen_fd_);
  }
  RawServer(const RawServer&) = delete;
  auto operator=(const RawServer&) -> RawServer& = delete;

  [[nodiscard]] auto port() const -> std::uint16_t { return port_; }
  [[nodiscard]] auto url() const -> std::string { return "http://127.0.0.1:" + std::to_string(port_); }

  /// Sends `text`; false once the client is gone.
  static auto send_all(int fd, std::string_view text) -> bool {
    while (!text.empty()) {
      const ssize_t n = ::send(fd, text.data(), text.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      text.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  /// Sleeps `s` seconds in small steps; false when the server is stopping.
  static auto nap(double s, const std::atomic<bool>& stopping) -> bool {
    for (const auto end = Clock::now() + std::chrono::duration<double>(s); Clock::now() < end;) {
      if (stopping) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return !stopping;
  }

 private:
  void serve() {
    while (!stopping_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      std::string head;
      char c = 0;
      while (head.find("\r\n\r\n") == std::string::npos && ::recv(fd, &c, 1, 0) == 1) head += c;
      behave_(fd, stopping_);
      ::close(fd);
    }
  }

  Behaviour behave_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

/// One byte of a valid answer every `period_s`, forever.
auto trickle(double period_s) -> RawServer::Behaviour {
  return [period_s](int fd, const std::atomic<bool>& stopping) {
    const std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + std::string(100000, 'x');
    for (char c : answer) {
      if (!RawServer::nap(period_s, stopping) || !RawServer::send_all(fd, std::string_view(&c, 1))) return;
    }
  };
}

/// Reads the request and says nothing until the client leaves or the server stops.
auto silent() -> RawServer::Behaviour {
  return [](int fd, const std::atomic<bool>& stopping) {
    char c = 0;
    while (!stopping) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) > 0 && ::recv(fd, &c, 1, 0) <= 0) return;  // the client hung up
    }
  };
}

/// A status line, then header lines `line` without end (or until the client leaves).
auto endless_headers(std::string line) -> RawServer::Behaviour {
  return [line = std::move(line)](int fd, const std::atomic<bool>& stopping) {
    if (!RawServer::send_all(fd, "HTTP/1.1 200 OK\r\n")) return;
    std::string block;
    for (int i = 0; i < 1000; ++i) block += line;
    for (int sent = 0; !stopping && sent < 100'000; ++sent) {
      if (!RawServer::send_all(fd, block)) return;
    }
  };
}

TEST(RequestBounds, a_trickling_server_fails_the_request_at_its_total_deadline) {
  RawServer server(trickle(0.4));
  auto http = make_remote_http(RemoteEndpoint{
      .url = server.url(), .connect_timeout_s = 1, .read_timeout_s = 2, .total_timeout_s = 1.0});
  ASSERT_TRUE(http.has_value());
  const auto t0 = Clock::now();
  auto r = (*http)->get("/metrics");
  const double took_s = seconds_since(t0);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, core::ErrorCode::Unavailable);
  EXPECT_NE(r.error().message.find("no complete answer from " + server.url() + "/metrics within 1 s"),
            std::string::npos)
      << r.error().message;
  EXPECT_GE(took_s, 0.9);
  EXPECT_LT(took_s, 1.6);
}

TEST(RequestBounds, the_loopback_client_keeps_the_same_total_deadline) {
  RawServer server(trickle(0.4));
  auto http =
      make_loopback_http_client({.connect_timeout_s = 1, .read_timeout_s = 2, .total_timeout_s = 1.0});
  const auto t0 = Clock::now();
  auto r = http->get("127.0.0.1", server.port(), "/v1/models");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("within 1 s"), std::string::npos) << r.error().message;
  EXPECT_LT(seconds_since(t0), 1.6);
}

TEST(RequestBounds, a_stop_cancels_a_request_in_flight_within_a_second) {
  RawServer server(silent());
  std::atomic<bool> stop{false};
  auto http = make_remote_http(
      RemoteEndpoint{.url = server.url(), .read_timeout_s = 60, .total_timeout_s = 600, .stop = {&stop}});
  ASSERT_TRUE(http.has_value());
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = true;
  });
  const auto t0 = Clock::now();
  auto r = (*http)->get("/metrics");
  const double took_s = seconds_since(t0);
  stopper.join();
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, core::ErrorCode::Aborted);
  EXPECT_NE(r.error().message.find("cancelled"), std::string::npos) << r.error().message;
  EXPECT_LT(took_s, 1.3);  // 0.3 s until the stop, then within a second (kStopPollS in practice)
}

TEST(RequestBounds, a_set_stop_flag_cancels_before_connecting) {
  RawServer server(silent());
  std::atomic<bool> stop{true};
  auto http = make_loopback_http_client({.stop = {&stop}});
  auto r = http->get("127.0.0.1", server.port(), "/");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, core::ErrorCode::Aborted);
}

TEST(RequestBounds, endless_header_lines_fail_naming_the_line_limit) {
  RawServer server(endless_headers("X-A: b\r\n"));
  auto http = make_remote_http(RemoteEndpoint{.url = server.url(), .total_timeout_s = 10});
  ASSERT_TRUE(http.has_value());
  const auto t0 = Clock::now();
  auto r = (*http)->get("/metrics");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, core::ErrorCode::ResourceExhausted);
  EXPECT_NE(r.error().message.find("more than " + std::to_string(kMaxResponseHeadLines) + " header lines"),
            std::string::npos)
      << r.error().message;
  EXPECT_LT(seconds_since(t0), 2.0);  // refused at the limit, not after the server's 100 M lines
}

TEST(RequestBounds, one_header_line_without_end_fails_naming_the_byte_limit) {
  RawServer server(endless_headers("aaaaaaaa"));
  auto http = make_loopback_http_client({.total_timeout_s = 10});
  auto r = http->get("127.0.0.1", server.port(), "/metrics");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, core::ErrorCode::ResourceExhausted);
  EXPECT_NE(r.error().message.find("a head of more than " + std::to_string(kMaxResponseHeadBytes) + " bytes"),
            std::string::npos)
      << r.error().message;
}

TEST(RequestBounds, an_ordinary_answer_and_a_form_post_pass) {
  RawServer server([](int fd, const std::atomic<bool>&) {
    (void)RawServer::send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
  });
  auto http = make_remote_http(RemoteEndpoint{.url = server.url()});
  ASSERT_TRUE(http.has_value());
  auto r = (*http)->post_form("/api/v1/query", "query=up&time=1");
  ASSERT_TRUE(r.has_value()) << r.error().describe();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "ok");
}

}  // namespace
}  // namespace solscope::net
