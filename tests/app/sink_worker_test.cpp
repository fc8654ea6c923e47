// Sinks on threads of their own (SinkWorker) and the exception barrier of the app's threads.
#include "runtime/detail/sink_worker.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "runtime/live_feed.hpp"
#include "runtime/process_refresh.hpp"
#include "support/fake_counter_source.hpp"

namespace solscope::app {
namespace {

/// Safety bound of every wait below, so that a broken build fails instead of hanging; never asserted on.
constexpr auto kSafety = std::chrono::seconds(5);

auto raw(std::int64_t index) -> core::RawSample {
  core::RawSample r;
  r.device_index = 0;
  r.t_start_ns = index * 1'000'000;
  r.t_end_ns = r.t_start_ns + 1'000'000;
  return r;
}

auto index_of(const core::SolSample& s) -> std::int64_t {
  return s.t_start_ns / 1'000'000;
}

/// Observes (never times): yields until `done()` holds or the safety bound passes.
template <class Pred>
auto eventually(Pred done) -> bool {
  const auto until = std::chrono::steady_clock::now() + kSafety;
  while (!done() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  return done();
}

/// A sink stuck in its first on_sample() until release(): a stalled `--json | less` or a stalled disk.
class StalledSink : public SampleSink {
 public:
  explicit StalledSink(SinkDelivery delivery) : delivery_(std::move(delivery)) {}
  auto begin(const std::vector<core::DeviceInfo>& /*devices*/) -> core::Result<void> override {
    return core::ok();
  }
  auto on_sample(const core::RawSample& /*raw*/, const core::SolSample& sol) -> core::Result<void> override {
    std::unique_lock lock(mutex_);
    if (!entered_) {
      entered_ = true;
      cv_.notify_all();
      cv_.wait_for(lock, kSafety, [this] { return released_; });
    }
    received_.push_back(index_of(sol));
    return core::ok();
  }
  [[nodiscard]] auto delivery() const -> SinkDelivery override { return delivery_; }

  void wait_entered() {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, kSafety, [this] { return entered_; });
  }
  void release() {
    const std::scoped_lock lock(mutex_);
    released_ = true;
    cv_.notify_all();
  }
  auto received() -> std::vector<std::int64_t> {
    const std::scoped_lock lock(mutex_);
    return received_;
  }

 private:
  SinkDelivery delivery_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool entered_ = false;
  bool released_ = false;
  std::vector<std::int64_t> received_;
};

/// One sample per poll. The second poll waits until the sink is stuck in the first sample; the last poll
/// (an empty batch, after every sample was offered) releases it.
class GatedSource : public testing::FakeCounterSource {
 public:
  GatedSource(StalledSink& sink, int samples) : sink_(sink) {
    devices_list = {core::DeviceInfo{.index = 0}};
    for (int i = 0; i < samples; ++i) batches.push_back(std::vector{raw(i)});
    batches.push_back(std::vector<core::RawSample>{});
  }
  auto poll() -> core::Result<std::vector<core::RawSample>> override {
    if (polls == 1) sink_.wait_entered();
    if (batches.size() == 1) sink_.release();
    return FakeCounterSource::poll();
  }

 private:
  StalledSink& sink_;
};

TEST(SinkWorkerTest, a_stalled_live_view_does_not_delay_polling_and_counts_what_it_skipped) {
  StalledSink sink({.overflow = core::Overflow::DropOldest, .capacity = 4, .name = "the JSON Lines output"});
  GatedSource source(sink, 20);
  std::ostringstream warnings;
  Engine engine(source, {&sink}, warnings);
  const std::atomic<bool> stop{false};
  // Paced, as a live run is: without its own thread the sink would hold up the engine at the first sample.
  auto summary = engine.run(stop, EngineOptions{.poll_interval_ns = 1'000'000});
  ASSERT_TRUE(summary) << summary.error().describe();
  EXPECT_EQ(source.polls, 21) << "every poll happened while the sink was stuck";
  EXPECT_EQ(summary->samples, 20u);
  EXPECT_EQ(summary->dropped, 15u) << "20 samples: 1 taken, 4 queued, the 15 oldest unread ones dropped";
  EXPECT_EQ(summary->waits, 0u);
  EXPECT_EQ(sink.received(), (std::vector<std::int64_t>{0, 16, 17, 18, 19}));
  EXPECT_NE(warnings.str().find("the JSON Lines output fell behind: it skipped 15 of 20 samples"),
            std::string::npos)
      << warnings.str();
}

TEST(SinkWorkerTest, a_stalled_recording_never_drops_and_makes_the_producer_wait) {
  StalledSink sink({.overflow = core::Overflow::Wait, .capacity = 4, .name = "the trace file"});
  SinkWorker worker(sink, sink.delivery());
  core::SolSample sol;
  const auto offer = [&](std::int64_t i) {
    sol.t_start_ns = raw(i).t_start_ns;
    return worker.offer(raw(i), sol);
  };
  ASSERT_EQ(offer(0), core::PushResult::Queued);
  sink.wait_entered();
  for (int i = 1; i <= 4; ++i) ASSERT_EQ(offer(i), core::PushResult::Queued) << i;
  std::vector<core::PushResult> later;
  std::thread producer([&] {
    for (int i = 5; i < 20; ++i) later.push_back(offer(i));
  });
  ASSERT_TRUE(eventually([&] { return worker.counters().waits >= 1; })) << "the fifth queued sample waits";
  sink.release();
  producer.join();
  ASSERT_TRUE(worker.finish());
  std::vector<std::int64_t> all(20);
  for (int i = 0; i < 20; ++i) all[i] = i;
  EXPECT_EQ(sink.received(), all);
  EXPECT_EQ(worker.counters().dropped, 0u);
  EXPECT_EQ(worker.counters().pushed, 20u);
  for (const auto r : later) EXPECT_NE(r, core::PushResult::Closed);
}

class ThrowingSink : public SampleSink {
 public:
  auto begin(const std::vector<core::DeviceInfo>& /*devices*/) -> core::Result<void> override {
    return core::ok();
  }
  auto on_sample(const core::RawSample& /*raw*/, const core::SolSample& /*sol*/)
      -> core::Result<void> override {
    throw std::runtime_error("sink bug");
  }
};

TEST(SinkWorkerTest, a_sink_that_throws_stops_the_run_with_its_reason) {
  testing::FakeCounterSource source;
  source.batches.push_back(std::vector{raw(0), raw(1)});
  ThrowingSink sink;
  std::ostringstream warnings;
  Engine engine(source, {&sink}, warnings);
  const std::atomic<bool> stop{false};
  auto summary = engine.run(stop, EngineOptions{.pace = false});
  ASSERT_FALSE(summary);
  EXPECT_EQ(summary.error().code, core::ErrorCode::Internal);
  EXPECT_EQ(summary.error().message, "the live view stopped: sink bug");
}

class ThrowingSource : public testing::FakeCounterSource {
 public:
  auto poll() -> core::Result<std::vector<core::RawSample>> override {
    throw std::runtime_error("driver exploded");
  }
};

TEST(GuardedThreadsTest, a_sampling_thread_that_throws_ends_the_run_with_its_reason) {
  ThrowingSource source;
  source.never_finish = true;
  const std::atomic<bool> external_stop{false};
  // Without the barrier the exception leaves the thread and std::terminate aborts this test binary.
  BackgroundEngine engine(source, {}, EngineOptions{.poll_interval_ns = 1'000'000}, external_stop);
  ASSERT_TRUE(eventually([&] { return engine.done(); }));
  const auto result = engine.result();
  ASSERT_TRUE(result.has_value());
  ASSERT_FALSE(result->has_value());
  EXPECT_EQ(result->error().code, core::ErrorCode::Internal);
  EXPECT_EQ(result->error().message, "the sampling thread stopped: driver exploded");
}

TEST(GuardedThreadsTest, a_process_refresh_that_throws_stops_and_says_why) {
  testing::FakeCounterSource source;
  source.never_finish = true;
  source.devices_list = {core::DeviceInfo{.index = 0}};
  core::LiveState state;
  state.set_devices(device_states_of(source));
  const std::atomic<bool> external_stop{false};
  BackgroundEngine engine(source, {}, EngineOptions{.poll_interval_ns = 1'000'000}, external_stop);
  // Without the barrier the exception leaves the refresher's thread and std::terminate aborts this binary.
  ProcessRefresher refresher(
      engine, state, [](std::uint32_t) -> std::string { throw std::logic_error("bad workload note"); },
      std::chrono::milliseconds(1));
  ASSERT_TRUE(eventually([&] { return !refresher.status().empty(); }));
  EXPECT_EQ(refresher.status(), "process refresh stopped: bad workload note");
  EXPECT_FALSE(engine.done()) << "sampling goes on";
}

}  // namespace
}  // namespace solscope::app
