#include "core/bounded_queue.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace solscope::core {
namespace {

/// Spins (yielding) until `done()` holds, at most `tries` times; true when it held. Observes, never times.
template <class Pred>
auto eventually(Pred done, int tries = 10'000'000) -> bool {
  for (int i = 0; i < tries; ++i) {
    if (done()) return true;
    std::this_thread::yield();
  }
  return done();
}

TEST(BoundedQueueTest, drop_oldest_keeps_the_newest_items_and_counts_the_rest) {
  BoundedQueue<int> queue(4, Overflow::DropOldest);
  for (int i = 0; i < 10; ++i) {
    const PushResult r = queue.push(i);
    EXPECT_EQ(r, i < 4 ? PushResult::Queued : PushResult::QueuedDroppedOldest) << i;
  }
  std::vector<int> out;
  ASSERT_TRUE(queue.pop_all(out));
  EXPECT_EQ(out, (std::vector<int>{6, 7, 8, 9}));
  const QueueCounters c = queue.counters();
  EXPECT_EQ(c.pushed, 10u);
  EXPECT_EQ(c.dropped, 6u);
  EXPECT_EQ(c.waits, 0u);
  EXPECT_EQ(c.high_water, 4u);
}

TEST(BoundedQueueTest, wait_never_drops_and_counts_the_push_that_waited) {
  BoundedQueue<int> queue(2, Overflow::Wait);
  ASSERT_EQ(queue.push(0), PushResult::Queued);
  ASSERT_EQ(queue.push(1), PushResult::Queued);
  PushResult third = PushResult::Closed;
  std::thread producer([&] { third = queue.push(2); });
  ASSERT_TRUE(eventually([&] { return queue.counters().waits == 1; })) << "the third push must wait";
  EXPECT_EQ(queue.size(), 2u);
  std::vector<int> out;
  ASSERT_TRUE(queue.pop_all(out));
  producer.join();
  EXPECT_EQ(third, PushResult::QueuedAfterWait);
  EXPECT_EQ(out, (std::vector<int>{0, 1}));
  ASSERT_TRUE(queue.pop_all(out));
  EXPECT_EQ(out, (std::vector<int>{2}));
  EXPECT_EQ(queue.counters().dropped, 0u);
  EXPECT_EQ(queue.counters().pushed, 3u);
}

TEST(BoundedQueueTest, close_releases_a_waiting_push_and_hands_out_what_is_left) {
  BoundedQueue<int> queue(1, Overflow::Wait);
  ASSERT_EQ(queue.push(7), PushResult::Queued);
  PushResult blocked = PushResult::Queued;
  std::thread producer([&] { blocked = queue.push(8); });
  ASSERT_TRUE(eventually([&] { return queue.counters().waits == 1; }));
  queue.close();
  producer.join();
  EXPECT_EQ(blocked, PushResult::Closed);
  EXPECT_EQ(queue.push(9), PushResult::Closed);
  std::vector<int> out;
  ASSERT_TRUE(queue.pop_all(out));
  EXPECT_EQ(out, std::vector<int>{7});
  EXPECT_FALSE(queue.pop_all(out));
  EXPECT_TRUE(out.empty());
}

TEST(BoundedQueueTest, abandon_discards_unread_items_without_counting_them_dropped) {
  BoundedQueue<int> queue(8, Overflow::Wait);
  for (int i = 0; i < 5; ++i) ASSERT_EQ(queue.push(i), PushResult::Queued);
  EXPECT_EQ(queue.abandon(), 5u);
  EXPECT_EQ(queue.counters().dropped, 0u);
  std::vector<int> out;
  EXPECT_FALSE(queue.pop_all(out));
}

TEST(BoundedQueueTest, a_zero_capacity_holds_one_item) {
  BoundedQueue<int> queue(0, Overflow::DropOldest);
  EXPECT_EQ(queue.capacity(), 1u);
  EXPECT_EQ(queue.push(1), PushResult::Queued);
  EXPECT_EQ(queue.push(2), PushResult::QueuedDroppedOldest);
}

}  // namespace
}  // namespace solscope::core
