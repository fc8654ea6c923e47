// A live server on an ephemeral loopback port: every endpoint, the token, TLS and shutdown.
#include <httplib.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "server/detail/assets.hpp"
#include "server_test_support.hpp"

namespace solscope::server {
namespace {

using namespace std::chrono_literals;
using testing::LiveServerTest;

constexpr const char* kToken = "test-token-0123456789abcdef";

class HttpServerTest : public LiveServerTest {
 protected:
  auto client() const -> httplib::Client {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(10, 0);
    return c;
  }
};

TEST_F(HttpServerTest, metrics_devices_samples_and_health_answer) {
  testing::fill(state_, 2, 5);
  start();
  auto c = client();
  auto metrics = c.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_EQ(metrics->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(metrics->body.find("solscope_compute_sol_ratio{gpu=\"1\""), std::string::npos);
  auto devices = c.Get("/api/v1/devices");
  ASSERT_TRUE(devices);
  EXPECT_EQ(devices->status, 200);
  EXPECT_EQ(nlohmann::json::parse(devices->body)["devices"].size(), 2U);
  auto samples = c.Get("/api/v1/samples?device=1&since=-3s&window=1s");
  ASSERT_TRUE(samples);
  EXPECT_EQ(samples->status, 200);
  EXPECT_GE(nlohmann::json::parse(samples->body)["samples"].size(), 3U);
  EXPECT_EQ(c.Get("/healthz")->body, "ok\n");
  EXPECT_EQ(c.Get("/readyz")->status, 200);
  EXPECT_FALSE(metrics->has_header("Access-Control-Allow-Origin"));
}

TEST_F(HttpServerTest, readyz_waits_for_a_sample_and_fails_when_every_gpu_is_lost) {
  state_.set_devices({testing::synthetic_device(0)});
  start();
  auto c = client();
  EXPECT_EQ(c.Get("/readyz")->status, 503);
  state_.add(testing::synthetic_sample(0, testing::kT0, 10.0));
  EXPECT_EQ(c.Get("/readyz")->status, 200);
  state_.set_lost(0, true);
  EXPECT_EQ(c.Get("/readyz")->status, 503);
}

TEST_F(HttpServerTest, dashboard_is_served_from_the_binary) {
  start();
  auto c = client();
  for (const std::string_view path : asset_paths()) {
    auto res = c.Get(std::string(path).c_str());
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200) << path;
    EXPECT_EQ(res->body, std::string(find_asset(path)->bytes)) << path;
  }
  if (find_asset("/")) {
    auto page = c.Get("/");
    EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
    EXPECT_NE(page->get_header_value("Content-Security-Policy").find("default-src 'self'"),
              std::string::npos);
  }
  EXPECT_EQ(c.Get("/assets/nope.js")->status, 404);
}

TEST_F(HttpServerTest, token_missing_is_401_wrong_is_403_right_is_200_and_probes_and_page_are_open) {
  testing::fill(state_, 1, 2);
  start({.token = kToken});
  auto c = client();
  auto missing = c.Get("/metrics");
  EXPECT_EQ(missing->status, 401);
  EXPECT_EQ(missing->get_header_value("WWW-Authenticate"), "Bearer");
  EXPECT_EQ(c.Get("/api/v1/devices", {{"Authorization", "Bearer wrong-token-0123456789"}})->status, 403);
  EXPECT_EQ(c.Get("/api/v1/stream", {{"Authorization", "Basic eDp5"}})->status, 401);
  EXPECT_EQ(c.Get("/metrics", {{"Authorization", std::string("Bearer ") + kToken}})->status, 200);
  EXPECT_EQ(c.Get("/api/v1/samples?device=0")->status, 401);
  // Probes and the static page hold no data: they answer without the token.
  EXPECT_EQ(c.Get("/healthz")->status, 200);
  EXPECT_EQ(c.Get("/readyz")->status, 200);
  if (find_asset("/")) {
    EXPECT_EQ(c.Get("/")->status, 200);
  }
  EXPECT_EQ(c.Get("/assets/nope.js")->status, 404);
}

TEST_F(HttpServerTest, non_loopback_address_without_token_is_refused) {
  auto started = Server::start({.host = "0.0.0.0", .port = 0}, state_);
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_NE(started.error().message.find("requires a bearer token"), std::string::npos);
}

TEST_F(HttpServerTest, a_taken_port_is_unavailable) {
  start();
  auto second = Server::start({.host = "127.0.0.1", .port = server_->port()}, state_);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, core::ErrorCode::Unavailable);
}

TEST_F(HttpServerTest, stream_says_hello_then_sends_published_samples_with_running_ids) {
  testing::fill(state_, 2, 1);
  start();
  std::string received;
  std::thread reader([&] {
    auto c = client();
    c.Get("/api/v1/stream?device=1", [&](const char* data, std::size_t n) {
      received.append(data, n);
      return received.find("id: 2\n") == std::string::npos;
    });
  });
  while (server_->stream_stats().clients == 0) std::this_thread::sleep_for(5ms);
  for (int i = 0; i < 4; ++i) {
    server_->publish(testing::synthetic_sample(static_cast<std::uint32_t>(i % 2), testing::kT0 + i, 42.0));
  }
  reader.join();
  EXPECT_TRUE(received.starts_with("event: hello\ndata: {\"devices\":[1],\"window_ns\":1000000000}\n\n"))
      << received;
  EXPECT_NE(received.find("id: 1\nevent: sample\ndata: {\"device\":1,\"uuid\":\"GPU-SYNTHETIC-1\""),
            std::string::npos)
      << received;
  EXPECT_EQ(received.find("\"device\":0"), std::string::npos);
}

TEST_F(HttpServerTest, stop_ends_open_streams_and_returns) {
  testing::fill(state_, 1, 1);
  start();
  bool ended = false;
  std::thread reader([&] {
    auto c = client();
    c.Get("/api/v1/stream", [](const char*, std::size_t) { return true; });
    ended = true;
  });
  while (server_->stream_stats().clients == 0) std::this_thread::sleep_for(5ms);
  server_->stop();
  reader.join();
  EXPECT_TRUE(ended);
  EXPECT_FALSE(client().Get("/healthz"));
}

/// A self-signed certificate made by the openssl command (skips when it is missing).
auto make_certificate(const std::filesystem::path& dir) -> bool {
  const std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -keyout " +
                          (dir / "key.pem").string() + " -out " + (dir / "cert.pem").string() +
                          " >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

TEST_F(HttpServerTest, tls_serves_https_and_refuses_plain_http) {
  const auto dir = std::filesystem::temp_directory_path() / ("solscope-tls-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  if (!make_certificate(dir)) GTEST_SKIP() << "no openssl command to make a test certificate";
  testing::fill(state_, 1, 1);
  start({.tls_cert_path = (dir / "cert.pem").string(), .tls_key_path = (dir / "key.pem").string()});
  EXPECT_TRUE(server_->url().starts_with("https://127.0.0.1:"));
  httplib::Client https(server_->url());
  https.set_ca_cert_path((dir / "cert.pem").string().c_str());
  https.enable_server_certificate_verification(true);
  auto res = https.Get("/healthz");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  auto plain = client().Get("/healthz");
  EXPECT_TRUE(!plain || plain->status != 200);
  auto bad = Server::start({.port = 0,
                            .tls_cert_path = (dir / "cert.pem").string(),
                            .tls_key_path = (dir / "missing.pem").string()},
                           state_);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, core::ErrorCode::NotFound);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace solscope::server
