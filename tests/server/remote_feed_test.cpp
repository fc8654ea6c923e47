// RemoteFeed against a live in-process server: devices, history, the stream, token, loss and reconnection.
#include "server/remote_feed.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "server_test_support.hpp"

namespace solscope::server {
namespace {

using namespace std::chrono_literals;

constexpr const char* kToken = "feed-token-0123456789abcdef";

template <class Pred>
auto eventually(Pred pred) -> bool {
  for (int i = 0; i < 1000; ++i) {
    if (pred()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return pred();
}

class RemoteFeedTest : public testing::LiveServerTest {
 protected:
  auto options() const -> RemoteOptions {
    RemoteOptions o;
    o.address = "127.0.0.1:" + std::to_string(server_->port());
    o.backoff_min = 50ms;
    o.backoff_max = 200ms;
    return o;
  }
  core::LiveState mirror_;
};

TEST_F(RemoteFeedTest, copies_devices_and_history_then_follows_the_stream) {
  testing::fill(state_, 2, 5);
  start();
  auto feed = RemoteFeed::connect(options(), mirror_);
  ASSERT_TRUE(feed) << feed.error().describe();
  const auto devices = mirror_.devices();
  ASSERT_EQ(devices.size(), 2U);
  EXPECT_EQ(devices[1].info.uuid, "GPU-SYNTHETIC-1");
  EXPECT_EQ(mirror_.newest_ns(), state_.newest_ns());
  EXPECT_GE(mirror_.windows(1, 0).size(), 4U);
  EXPECT_EQ((*feed)->status(), "");
  ASSERT_TRUE(eventually([&] { return server_->stream_stats().clients == 1; }));
  const std::int64_t t = state_.newest_ns();
  for (int i = 0; i < 3; ++i) {
    const auto s = testing::synthetic_sample(1, t + i * 100'000'000LL, 77.0);
    state_.add(s);
    server_->publish(s);
  }
  ASSERT_TRUE(eventually([&] { return (*feed)->samples_received() == 3; }));
  EXPECT_EQ(mirror_.newest_ns(), t + 300'000'000);
  EXPECT_DOUBLE_EQ(mirror_.snapshot(1)->latest->compute_sol_pct, 77.0);
}

TEST_F(RemoteFeedTest, wrong_address_token_or_service_fail_at_connect) {
  testing::fill(state_, 1, 1);
  start({.token = kToken});
  auto no_token = RemoteFeed::connect(options(), mirror_);
  ASSERT_FALSE(no_token);
  EXPECT_EQ(no_token.error().code, core::ErrorCode::PermissionDenied);
  RemoteOptions with_token = options();
  with_token.token = kToken;
  EXPECT_TRUE(RemoteFeed::connect(with_token, mirror_));
  RemoteOptions bad = options();
  bad.address = "not an address";
  auto invalid = RemoteFeed::connect(bad, mirror_);
  ASSERT_FALSE(invalid);
  EXPECT_EQ(invalid.error().code, core::ErrorCode::InvalidArgument);
  RemoteOptions user_info = options();  // refused by net::parse_url, the password never shown
  user_info.address = "http://admin:s3cret@127.0.0.1:" + std::to_string(server_->port());
  auto with_password = RemoteFeed::connect(user_info, mirror_);
  ASSERT_FALSE(with_password);
  EXPECT_EQ(with_password.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(with_password.error().message.find("s3cret"), std::string::npos) << with_password.error().message;
  const std::uint16_t port = server_->port();
  server_->stop();
  RemoteOptions gone = options();
  gone.address = "127.0.0.1:" + std::to_string(port);
  auto refused = RemoteFeed::connect(gone, mirror_);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, core::ErrorCode::Unavailable);
  EXPECT_NE(refused.error().message.find("nothing answers at 127.0.0.1:"), std::string::npos);
}

TEST_F(RemoteFeedTest, reports_a_lost_daemon_and_reconnects_when_it_is_back) {
  testing::fill(state_, 1, 2);
  start();
  const std::uint16_t port = server_->port();
  auto feed = RemoteFeed::connect(options(), mirror_);
  ASSERT_TRUE(feed) << feed.error().describe();
  ASSERT_TRUE(eventually([&] { return server_->stream_stats().clients == 1; }));
  server_->stop();
  server_.reset();
  ASSERT_TRUE(eventually([&] { return (*feed)->status().starts_with("lost connection to 127.0.0.1:"); }))
      << (*feed)->status();
  auto again = Server::start({.host = "127.0.0.1", .port = port}, state_);
  ASSERT_TRUE(again) << again.error().describe();
  server_ = std::move(*again);
  ASSERT_TRUE(eventually([&] { return server_->stream_stats().clients == 1; }));
  const auto s = testing::synthetic_sample(0, state_.newest_ns(), 33.0);
  state_.add(s);
  server_->publish(s);
  ASSERT_TRUE(eventually([&] { return (*feed)->samples_received() == 1; }));
  EXPECT_EQ((*feed)->status(), "");
  EXPECT_EQ(mirror_.devices().size(), 1U);
}

TEST_F(RemoteFeedTest, local_daemon_probe_answers_for_a_listening_server_only) {
  start();
  EXPECT_TRUE(local_daemon_running(server_->port()));
  const std::uint16_t port = server_->port();
  server_->stop();
  EXPECT_FALSE(local_daemon_running(port));
}

}  // namespace
}  // namespace solscope::server
