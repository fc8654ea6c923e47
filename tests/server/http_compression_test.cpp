// Compressed answers (issue 18, defect 5): gzip at a fast level, only for bodies worth it, never brotli, and
// done by the route inside /api/v1/samples' limit of 4 answers at once. Before the fix cpp-httplib compressed
// every compressible answer itself, of any size, after the route had given its turn back, and with brotli at
// quality 11 when the client sent `Accept-Encoding: br` (about 1 s of CPU for one 1.5 MB samples answer).
#include <httplib.h>

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "raw_http.hpp"
#include "server/detail/body_encoding.hpp"
#include "server/detail/connection_registry.hpp"
#include "server/detail/event_stream.hpp"
#include "server/detail/guarded_server.hpp"
#include "server/detail/routes.hpp"
#include "server_test_support.hpp"

namespace solscope::server {
namespace {

using namespace std::chrono_literals;
using testing::RawConnection;

class HttpCompressionTest : public testing::LiveServerTest {
 protected:
  void SetUp() override {
    LiveServerTest::SetUp();
    testing::fill(state_, 1, 30);  // 30 one-second windows: a samples answer of several KiB
  }
  /// The head of the answer to GET `path` with `Accept-Encoding: accept` (none when empty).
  auto head_of(const std::string& path, const std::string& accept) const -> std::string {
    RawConnection c(server_->port());
    c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n" +
           (accept.empty() ? "" : "Accept-Encoding: " + accept + "\r\n") + "\r\n");
    const std::string answer = c.read_all(10s);
    return answer.substr(0, answer.find("\r\n\r\n"));
  }
};

TEST(BodyEncoding, accept_encoding_is_read_with_its_q_values) {
  EXPECT_TRUE(detail::accepts_gzip("gzip, deflate, br"));
  EXPECT_TRUE(detail::accepts_gzip("br;q=1.0, GZIP;q=0.5"));
  EXPECT_TRUE(detail::accepts_gzip("*"));
  EXPECT_FALSE(detail::accepts_gzip("br"));
  EXPECT_FALSE(detail::accepts_gzip("gzip;q=0"));
  EXPECT_FALSE(detail::accepts_gzip("gzip;q=0, *"));
  EXPECT_FALSE(detail::accepts_gzip("identity, *;q=0"));
  EXPECT_FALSE(detail::accepts_gzip("gzip;q=nope"));
  EXPECT_FALSE(detail::accepts_gzip(""));
}

TEST(BodyEncoding, only_bodies_of_the_threshold_or_more_are_compressed) {
  httplib::Request req;
  req.headers.emplace("Accept-Encoding", "gzip");
  req.headers.emplace(detail::kAcceptsGzipHeader, "1");  // a client's own is dropped, not trusted
  detail::take_accept_encoding(req);
  EXPECT_FALSE(req.has_header("Accept-Encoding"));  // cpp-httplib sees none: it never compresses itself
  EXPECT_EQ(req.get_header_value_count(detail::kAcceptsGzipHeader), 1U);
  const std::string small(detail::kMinCompressedBodyBytes - 1, 'a');
  const std::string enough(detail::kMinCompressedBodyBytes, 'a');
  EXPECT_FALSE(detail::encode_body(req, small).gzipped);
  const auto encoded = detail::encode_body(req, enough);
  EXPECT_TRUE(encoded.gzipped);
  EXPECT_LT(encoded.bytes.size(), enough.size());
  httplib::Request no_gzip;
  no_gzip.headers.emplace("Accept-Encoding", "br");
  no_gzip.headers.emplace(detail::kAcceptsGzipHeader, "1");
  detail::take_accept_encoding(no_gzip);
  EXPECT_FALSE(no_gzip.has_header(detail::kAcceptsGzipHeader));
  EXPECT_FALSE(detail::encode_body(no_gzip, enough).gzipped);
}

TEST_F(HttpCompressionTest, gzip_only_for_bodies_worth_it_and_never_brotli) {
  start();
  const std::string samples = "/api/v1/samples?device=0&since=0";
  const std::string big = head_of(samples, "gzip, deflate, br");
  EXPECT_NE(big.find("Content-Encoding: gzip"), std::string::npos) << big;
  EXPECT_NE(big.find("Vary: Accept-Encoding"), std::string::npos) << big;
  // A browser's `br` alone gets the body as it is (no brotli at all), as does `gzip;q=0`.
  EXPECT_EQ(head_of(samples, "br").find("Content-Encoding"), std::string::npos);
  EXPECT_EQ(head_of(samples, "gzip;q=0").find("Content-Encoding"), std::string::npos);
  EXPECT_EQ(head_of(samples, "").find("Content-Encoding"), std::string::npos);
  // Bodies under kMinCompressedBodyBytes go as they are: a probe, an error, a short samples answer.
  EXPECT_EQ(head_of("/healthz", "gzip").find("Content-Encoding"), std::string::npos);
  EXPECT_EQ(head_of("/api/v1/samples?device=7", "gzip").find("Content-Encoding"), std::string::npos);

  // The gzip body is the plain body, compressed.
  httplib::Client client("127.0.0.1", server_->port());
  const auto plain = client.Get(samples.c_str());
  const auto gzipped = client.Get(samples.c_str(), {{"Accept-Encoding", "gzip"}});
  ASSERT_TRUE(plain && gzipped);
  EXPECT_EQ(gzipped->get_header_value("Content-Encoding"), "gzip");
  EXPECT_GE(plain->body.size(), detail::kMinCompressedBodyBytes);
  EXPECT_EQ(gzipped->body, plain->body);  // httplib's client inflated it
  const auto metrics = client.Get("/metrics", {{"Accept-Encoding", "gzip"}});
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->get_header_value("Content-Encoding"), "gzip");
}

/// The routes on a GuardedServer of their own, with a compression stand-in that holds every call until
/// released.
class SamplesLimitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::fill(state_, 1, 30);
    context_.encode = [this](const httplib::Request& req, std::string body) {
      std::unique_lock lock(mutex_);
      ++active_;
      ++calls_;
      peak_ = std::max(peak_, active_);
      changed_.notify_all();
      changed_.wait(lock, [this] { return released_; });
      --active_;
      return detail::encode_body(req, std::move(body));
    };
    detail::install_routes(http_, context_);
    port_ = http_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { http_.listen_after_bind(); });
    for (int i = 0; i < 5000 && !http_.is_running(); ++i) std::this_thread::sleep_for(1ms);
  }
  void TearDown() override {
    release();
    http_.stop();
    if (thread_.joinable()) thread_.join();
  }
  void release() {
    const std::scoped_lock lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }

  core::LiveState state_;
  StreamHub hub_{8, 8};
  ServerOptions options_;
  detail::RouteContext context_{.state = state_, .hub = hub_, .options = options_, .metrics = {}};
  detail::ConnectionRegistry registry_{64};
  detail::GuardedServer<httplib::Server> http_{registry_, detail::ConnectionLimits{}};
  int port_ = 0;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int active_ = 0;
  int peak_ = 0;
  int calls_ = 0;
  bool released_ = false;
};

TEST_F(SamplesLimitTest, the_fifth_answer_waits_while_four_compress) {
  ASSERT_GT(port_, 0);
  std::vector<int> statuses(5, 0);
  std::vector<std::thread> clients;
  for (std::size_t i = 0; i < statuses.size(); ++i) {
    clients.emplace_back([this, i, &statuses] {
      httplib::Client client("127.0.0.1", port_);
      client.set_read_timeout(30, 0);
      const auto res = client.Get("/api/v1/samples?device=0&since=0", {{"Accept-Encoding", "gzip"}});
      statuses[i] = res ? res->status : -1;
    });
  }
  {
    std::unique_lock lock(mutex_);
    ASSERT_TRUE(changed_.wait_for(lock, 10s, [this] { return active_ == 4; }));
  }
  std::this_thread::sleep_for(300ms);  // room for a fifth compression, were it outside the limit
  {
    const std::scoped_lock lock(mutex_);
    EXPECT_EQ(active_, 4);
    EXPECT_EQ(calls_, 4);
  }
  release();
  for (auto& c : clients) c.join();
  for (const int status : statuses) EXPECT_EQ(status, 200);
  const std::scoped_lock lock(mutex_);
  EXPECT_EQ(peak_, 4);
  EXPECT_EQ(calls_, 5);
}

}  // namespace
}  // namespace solscope::server
