// Bad input against a live server: malformed requests, bodies, oversized headers, too many stream clients, a
// slow client. Each gets a fitting 4xx or 429; the server keeps answering.
#include <httplib.h>

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "raw_http.hpp"
#include "server_test_support.hpp"

namespace solscope::server {
namespace {

using namespace std::chrono_literals;
using testing::RawConnection;

class HttpLimitsTest : public testing::LiveServerTest {
 protected:
  void SetUp() override {
    LiveServerTest::SetUp();
    testing::fill(state_, 2, 2);
  }
  auto status_of(const std::string& request) const -> int {
    RawConnection c(server_->port());
    EXPECT_TRUE(c.connected());
    c.send(request);
    return c.status(10s);
  }
  auto healthy() const -> bool {
    httplib::Client c("127.0.0.1", server_->port());
    auto res = c.Get("/healthz");
    return res && res->status == 200;
  }
};

TEST_F(HttpLimitsTest, malformed_paths_and_queries_are_4xx) {
  start();
  EXPECT_EQ(status_of("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n"), 404);
  EXPECT_EQ(status_of("GET /api/v1/samples?device=%ZZ HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET /api/v1/samples?device=0&window=7ms HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET /api/v1/samples?device=12 HTTP/1.1\r\nHost: x\r\n\r\n"), 404);
  EXPECT_EQ(status_of("GET /api/v1/stream?device=-1 HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET /api/v1/stream?device=9 HTTP/1.1\r\nHost: x\r\n\r\n"), 404);
  EXPECT_EQ(status_of("GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n"), 404);
  EXPECT_EQ(status_of("GET /assets/%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n"), 404);
  EXPECT_EQ(status_of("GARBAGE\r\n\r\n"), 400);
  EXPECT_EQ(status_of("BREW /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_TRUE(healthy());
}

TEST_F(HttpLimitsTest, a_parameter_that_is_not_exactly_one_value_is_400_on_every_endpoint) {
  start();
  // Before the fix cpp-httplib kept the last part of `device=0;since=1` (GPU 1's samples, 200) and the first
  // of a repeated key (200).
  for (const char* query : {"device=0;since=1", "device=0&device=1", "device=0&device=0", "device=0=1",
                            "device", "=0", "device=%3", "device=0&since=-5m%3Fwindow=1s;x"}) {
    RawConnection c(server_->port());
    c.send(std::string("GET /api/v1/samples?") + query + " HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string answer = c.read_all(10s);
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 400")) << query << ": " << answer.substr(0, 200);
    EXPECT_NE(answer.find("\"error\":\"query "), std::string::npos) << query << ": " << answer;
  }
  EXPECT_EQ(status_of("GET /api/v1/stream?device=0&device=1 HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET /metrics?a=1;b=2 HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  // A second '?' is refused by cpp-httplib's request-line parser already.
  EXPECT_EQ(status_of("GET /api/v1/samples?device=0&since=-5m?window=1s HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET /api/v1/samples?device=1&since=-1s&&window=1s& HTTP/1.1\r\nHost: x\r\n\r\n"), 200);
  EXPECT_EQ(status_of("GET /api/v1/samples?device=%31 HTTP/1.1\r\nHost: x\r\n\r\n"), 200);
  EXPECT_TRUE(healthy());
}

TEST_F(HttpLimitsTest, writes_are_405_and_bodies_are_413) {
  start();
  EXPECT_EQ(status_of("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"), 405);
  EXPECT_EQ(status_of("DELETE /api/v1/devices HTTP/1.1\r\nHost: x\r\n\r\n"), 405);
  EXPECT_EQ(status_of("OPTIONS /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 405);
  EXPECT_EQ(status_of("GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"), 413);
  EXPECT_EQ(
      status_of(
          "GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"),
      413);
  EXPECT_TRUE(healthy());
}

TEST_F(HttpLimitsTest, oversized_request_line_and_headers_are_4xx) {
  start();
  EXPECT_EQ(status_of("GET /metrics?" + std::string(9000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n"), 414);
  const int big_header =
      status_of("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(9000, 'b') + "\r\n\r\n");
  EXPECT_GE(big_header, 400);
  EXPECT_LT(big_header, 500);
  EXPECT_TRUE(healthy());
}

TEST_F(HttpLimitsTest, two_hundred_stream_clients_get_max_clients_streams_and_429_for_the_rest) {
  constexpr std::size_t kMax = 16;
  constexpr std::size_t kClients = 200;
  start({.max_stream_clients = kMax, .max_connections_per_address = kClients, .keep_alive_interval = 50ms});
  std::vector<std::unique_ptr<RawConnection>> clients;
  for (std::size_t i = 0; i < kClients; ++i) {
    clients.push_back(std::make_unique<RawConnection>(server_->port()));
    ASSERT_TRUE(clients.back()->connected());
    clients.back()->send("GET /api/v1/stream HTTP/1.1\r\nHost: x\r\n\r\n");
  }
  std::size_t ok = 0;
  std::size_t too_many = 0;
  for (auto& c : clients) {
    const int status = c->status(20s);
    ok += status == 200 ? 1 : 0;
    too_many += status == 429 ? 1 : 0;
  }
  EXPECT_EQ(ok, kMax);
  EXPECT_EQ(too_many, kClients - kMax);
  EXPECT_EQ(server_->stream_stats().clients, kMax);
  EXPECT_EQ(server_->stream_stats().rejected, kClients - kMax);
  EXPECT_TRUE(healthy());
  clients.clear();
  // Closed clients are noticed at the next keep-alive write and free their slots.
  for (int i = 0; i < 400 && server_->stream_stats().clients > 0; ++i) std::this_thread::sleep_for(25ms);
  EXPECT_EQ(server_->stream_stats().clients, 0U);
}

TEST_F(HttpLimitsTest, a_429_says_when_to_retry) {
  start({.max_stream_clients = 1});
  RawConnection first(server_->port());
  first.send("GET /api/v1/stream HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_EQ(first.status(10s), 200);
  RawConnection second(server_->port());
  second.send("GET /api/v1/stream HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(second.status(10s), 429);
  EXPECT_NE(second.read_until("\r\n\r\n", 10s).find("Retry-After: 15\r\n"), std::string::npos);
}

TEST_F(HttpLimitsTest, a_client_that_does_not_read_loses_its_oldest_events_and_is_told) {
  start({.stream_queue_events = 4});
  RawConnection slow(server_->port());
  slow.send("GET /api/v1/stream HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_EQ(slow.status(10s), 200);
  ASSERT_NE(slow.read_until("event: hello", 10s).find("event: hello"), std::string::npos);
  // Publish far more than the socket buffers and the queue hold; the publisher never blocks.
  for (int i = 0; i < 5000; ++i) {
    core::SolSample s = testing::synthetic_sample(0, testing::kT0 + i, 1.0);
    server_->publish(s);
  }
  const std::string got = slow.read_until("event: dropped", 20s);
  EXPECT_NE(got.find("event: dropped\ndata: {\"dropped\":"), std::string::npos);
  EXPECT_GT(server_->stream_stats().dropped_events, 0U);
}

}  // namespace
}  // namespace solscope::server
