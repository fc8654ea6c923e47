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

// Issue 25: a view attached to a daemon shows the daemon's training iteration (made from every sample), not
// one of its own from back-filled 1 s windows: the feed reads each device's `iteration` back and the mirror's
// snapshots carry it, note included, while streamed samples go on arriving. Before, the mirror had none.
TEST_F(RemoteFeedTest, a_view_attached_to_a_daemon_shows_the_daemons_iteration) {
  testing::fill(state_, 2, 5);
  core::IterationEstimate none;
  none.confidence = 0.25;
  none.note = "no repeat found";
  state_.set_iteration(0, none);
  const core::IterationEstimate daemon =
      testing::periodic_iteration(0.5, {0.375, 0.125, 0.25, 0.0, 0.25}, 0.25, 0.125);
  state_.set_iteration(1, daemon);
  start();
  auto feed = RemoteFeed::connect(options(), mirror_);
  ASSERT_TRUE(feed) << feed.error().describe();
  const auto check = [&] {
    const core::IterationEstimate got = mirror_.snapshot(1)->iteration;
    EXPECT_TRUE(got.periodic);
    EXPECT_EQ(got.period_s, 0.5);
    EXPECT_EQ(got.jitter_s, 0.00390625);
    EXPECT_EQ(got.confidence, 0.875);
    EXPECT_EQ(got.window_ns, daemon.window_ns);
    EXPECT_EQ(got.estimated_at_ns, daemon.estimated_at_ns);
    EXPECT_EQ(got.part_ratio, daemon.part_ratio);
    EXPECT_EQ(got.communication_ratio, 0.25);
    EXPECT_EQ(got.exposed_communication_ratio, 0.125);
    EXPECT_EQ(got.communication_offset_s, 0.0625);
    EXPECT_EQ(got.strip, daemon.strip);
    const core::IterationEstimate not_periodic = mirror_.snapshot(0)->iteration;
    EXPECT_FALSE(not_periodic.periodic);
    EXPECT_EQ(not_periodic.confidence, 0.25);
    EXPECT_EQ(not_periodic.note, "no repeat found");
  };
  check();
  ASSERT_TRUE(eventually([&] { return server_->stream_stats().clients == 1; }));
  for (int i = 0; i < 3; ++i) {
    const auto s = testing::synthetic_sample(1, state_.newest_ns(), 77.0);
    state_.add(s);
    server_->publish(s);
  }
  ASSERT_TRUE(eventually([&] { return (*feed)->samples_received() == 3; }));
  check();  // the streamed samples leave the daemon's estimate in place
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
