#include "core/guarded_run.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

namespace solscope::core {
namespace {

TEST(GuardedRunTest, a_thread_body_that_throws_is_reported_and_does_not_terminate) {
  const std::size_t before = thread_faults().count();
  ThreadFault fault;
  bool returned = true;
  // Without the barrier, the exception would leave the thread and std::terminate would abort this test.
  std::thread thread([&] {
    returned = guarded_run(
        "process refresh", [] { throw std::runtime_error("no such device"); }, &fault);
  });
  thread.join();
  EXPECT_FALSE(returned);
  EXPECT_TRUE(fault.failed());
  EXPECT_EQ(fault.text(), "process refresh stopped: no such device");
  EXPECT_EQ(thread_faults().count(), before + 1);
  std::size_t cursor = before;
  const auto logged = thread_faults().since(cursor);
  ASSERT_EQ(logged.size(), 1u);
  EXPECT_EQ(logged[0], "process refresh stopped: no such device");
}

TEST(GuardedRunTest, catches_what_is_not_a_std_exception) {
  ThreadFault fault;
  std::thread thread([&] {
    (void)guarded_run(
        "the feed", [] { throw 42; }, &fault);
  });
  thread.join();
  EXPECT_EQ(fault.text(), "the feed stopped: an exception that is not a std::exception");
}

TEST(GuardedRunTest, a_body_that_returns_records_nothing) {
  const std::size_t before = thread_faults().count();
  ThreadFault fault;
  int runs = 0;
  EXPECT_TRUE(guarded_run(
      "quiet", [&] { ++runs; }, &fault));
  EXPECT_EQ(runs, 1);
  EXPECT_FALSE(fault.failed());
  EXPECT_EQ(fault.text(), "");
  EXPECT_EQ(thread_faults().count(), before);
}

TEST(GuardedRunTest, keeps_the_first_fault) {
  ThreadFault fault;
  (void)guarded_run(
      "a", [] { throw std::runtime_error("first"); }, &fault);
  (void)guarded_run(
      "a", [] { throw std::runtime_error("second"); }, &fault);
  EXPECT_EQ(fault.text(), "a stopped: first");
}

}  // namespace
}  // namespace solscope::core
