#include "server/detail/event_stream.hpp"

#include <gtest/gtest.h>

namespace solscope::server {
namespace {

using std::chrono::milliseconds;

auto event(std::uint32_t device, std::string data) -> std::shared_ptr<const StreamEvent> {
  return std::make_shared<const StreamEvent>(StreamEvent{device, std::move(data)});
}

TEST(StreamHubTest, full_queue_drops_the_oldest_and_counts_it) {
  StreamHub hub(4, 3);
  auto client = hub.connect(std::nullopt);
  ASSERT_NE(client, nullptr);
  for (int i = 0; i < 5; ++i) hub.publish(event(0, std::to_string(i)));
  const StreamBatch batch = client->take(milliseconds(0));
  EXPECT_EQ(batch.dropped, 2U);
  ASSERT_EQ(batch.events.size(), 3U);
  EXPECT_EQ(batch.events[0]->data, "2");
  EXPECT_EQ(batch.events[2]->data, "4");
  EXPECT_EQ(client->take(milliseconds(0)).dropped, 0U);
  EXPECT_EQ(hub.stats().dropped_events, 2U);
}

TEST(StreamHubTest, device_filter_keeps_only_that_gpu) {
  StreamHub hub(4, 8);
  auto only_one = hub.connect(1U);
  auto all = hub.connect(std::nullopt);
  hub.publish(event(0, "a"));
  hub.publish(event(1, "b"));
  const auto filtered = only_one->take(milliseconds(0));
  ASSERT_EQ(filtered.events.size(), 1U);
  EXPECT_EQ(filtered.events[0]->data, "b");
  EXPECT_EQ(all->take(milliseconds(0)).events.size(), 2U);
}

TEST(StreamHubTest, refuses_clients_beyond_the_limit_and_frees_slots_on_release) {
  StreamHub hub(2, 1);
  auto a = hub.connect(std::nullopt);
  auto b = hub.connect(std::nullopt);
  EXPECT_NE(a, nullptr);
  EXPECT_NE(b, nullptr);
  EXPECT_EQ(hub.connect(std::nullopt), nullptr);
  EXPECT_EQ(hub.stats().rejected, 1U);
  a.reset();
  EXPECT_EQ(hub.stats().clients, 1U);
  EXPECT_NE(hub.connect(std::nullopt), nullptr);
}

TEST(StreamHubTest, close_wakes_takers_and_refuses_new_clients) {
  StreamHub hub(2, 4);
  auto client = hub.connect(std::nullopt);
  hub.close();
  EXPECT_TRUE(client->take(milliseconds(10'000)).closed);
  EXPECT_EQ(hub.connect(std::nullopt), nullptr);
}

TEST(StreamHubTest, has_clients_follows_connections) {
  StreamHub hub(2, 4);
  EXPECT_FALSE(hub.has_clients());
  auto client = hub.connect(std::nullopt);
  EXPECT_TRUE(hub.has_clients());
  client.reset();
  EXPECT_FALSE(hub.has_clients());
}

}  // namespace
}  // namespace solscope::server
