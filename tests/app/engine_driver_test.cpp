// The one driver of a source (BackgroundEngine, docs/design/architecture.md section 5) and the synchronous
// commands' wrapper over it (run_engine): waiting, stopping between polls, where warnings go, who stops the
// source, and the fault barrier's thread name.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/guarded_run.hpp"
#include "runtime/engine_loop.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/live_feed.hpp"
#include "support/fake_counter_source.hpp"

namespace solscope::app {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kHourNs = 3'600'000 * kMs;
/// Safety bound of the waits below, far above the ~100 ms they take; a broken build fails instead of hanging.
constexpr auto kSafety = std::chrono::seconds(5);

auto raw(std::int64_t index) -> core::RawSample {
  core::RawSample r;
  r.device_index = 0;
  r.t_start_ns = index * kMs;
  r.t_end_ns = r.t_start_ns + kMs;
  return r;
}

/// Keeps the raw samples it is given (on its worker's thread; read once the engine has returned).
struct KeepingSink : SampleSink {
  std::vector<core::RawSample> raws;
  auto begin(const std::vector<core::DeviceInfo>& /*devices*/) -> core::Result<void> override {
    return core::ok();
  }
  auto on_sample(const core::RawSample& r, const core::SolSample& /*sol*/) -> core::Result<void> override {
    raws.push_back(r);
    return core::ok();
  }
};

/// A scripted source that remembers the thread that stopped it.
class ThreadNotingSource : public testing::FakeCounterSource {
 public:
  std::thread::id stopped_on;
  void stop() override {
    stopped_on = std::this_thread::get_id();
    FakeCounterSource::stop();
  }
};

class ThrowingSource : public testing::FakeCounterSource {
 public:
  auto poll() -> core::Result<std::vector<core::RawSample>> override {
    throw std::runtime_error("driver exploded");
  }
};

TEST(EngineDriverTest, wait_returns_the_summary_once_a_replay_ended_and_leaves_the_source_to_its_owner) {
  testing::FakeCounterSource source;
  source.devices_list = {core::DeviceInfo{.index = 0}};
  source.batches.emplace_back(std::vector<core::RawSample>{raw(0), raw(1)});
  source.batches.emplace_back(std::vector<core::RawSample>{raw(2)});
  KeepingSink sink;
  const std::atomic<bool> external_stop{false};
  BackgroundEngine engine(source, {&sink}, EngineOptions{.poll_interval_ns = kMs}, external_stop);
  const auto summary = engine.wait();
  ASSERT_TRUE(summary) << summary.error().describe();
  EXPECT_EQ(summary->samples, 3u);
  EXPECT_TRUE(engine.done());
  ASSERT_EQ(sink.raws.size(), 3u);
  EXPECT_EQ(sink.raws[2].t_start_ns, 2 * kMs);
  EXPECT_FALSE(source.stopped) << "without stop_source the owner stops the source";
}

TEST(EngineDriverTest, a_signal_flag_or_stop_ends_an_hour_long_sleep_between_polls) {
  for (const bool by_flag : {true, false}) {
    testing::FakeCounterSource source;
    source.never_finish = true;
    std::atomic<bool> external_stop{false};
    BackgroundEngine engine(source, {}, EngineOptions{.poll_interval_ns = kHourNs}, external_stop);
    const auto started = std::chrono::steady_clock::now();
    if (by_flag) {
      external_stop = true;  // as the SIGINT/SIGTERM handler does: nobody is woken, the engine looks
      ASSERT_TRUE(engine.wait());
    } else {
      engine.stop();
      ASSERT_TRUE(engine.result().has_value());
    }
    EXPECT_LT(std::chrono::steady_clock::now() - started, kSafety) << (by_flag ? "flag" : "stop()");
    EXPECT_GE(source.polls, 1) << "one last poll collects what the source completed";
  }
}

TEST(EngineDriverTest, warnings_go_to_the_given_stream_instead_of_warnings) {
  testing::FakeCounterSource source;
  source.devices_list = {core::DeviceInfo{.index = 0, .uuid = "GPU-a"}};
  source.statuses[0] = sources::DeviceStatus{
      .source = core::SourceKind::NvmlOnly, .reason = "fell off the bus", .hint = "", .lost = true};
  source.batches.emplace_back(std::vector<core::RawSample>{raw(0)});
  std::ostringstream err;
  const std::atomic<bool> external_stop{false};
  BackgroundEngine engine(source, {}, EngineOptions{.poll_interval_ns = kMs}, external_stop,
                          {.warnings = &err});
  ASSERT_TRUE(engine.wait());
  EXPECT_NE(err.str().find("GPU 0 (GPU-a) stopped answering: fell off the bus"), std::string::npos)
      << err.str();
  EXPECT_EQ(engine.warnings(), "");
}

TEST(EngineDriverTest, stop_source_stops_it_on_the_engine_thread_when_the_run_ends) {
  ThreadNotingSource source;
  source.batches.emplace_back(std::vector<core::RawSample>{raw(0)});
  const std::atomic<bool> external_stop{false};
  BackgroundEngine engine(source, {}, EngineOptions{.poll_interval_ns = kMs}, external_stop,
                          {.stop_source = true});
  ASSERT_TRUE(engine.wait());
  EXPECT_TRUE(source.stopped);
  EXPECT_NE(source.stopped_on, std::this_thread::get_id());
}

TEST(EngineDriverTest, a_fault_ends_the_run_with_the_named_thread_and_is_booked) {
  const std::size_t before = core::thread_faults().count();
  ThrowingSource source;
  source.never_finish = true;
  const std::atomic<bool> external_stop{false};
  BackgroundEngine engine(source, {}, EngineOptions{.poll_interval_ns = kMs}, external_stop,
                          {.thread_name = "the check's sampling thread"});
  const auto summary = engine.wait();
  ASSERT_FALSE(summary);
  EXPECT_EQ(summary.error().code, core::ErrorCode::Internal);
  EXPECT_EQ(summary.error().message, "the check's sampling thread stopped: driver exploded");
  EXPECT_EQ(core::thread_faults().count(), before + 1);
  std::size_t cursor = before;
  EXPECT_EQ(core::thread_faults().since(cursor),
            std::vector<std::string>{"the check's sampling thread stopped: driver exploded"});
}

TEST(RunEngineTest, the_end_of_a_replay_exits_0_and_stops_the_source) {
  testing::FakeCounterSource source;
  source.batches.emplace_back(std::vector<core::RawSample>{raw(0), raw(1)});
  KeepingSink sink;
  std::ostringstream err;
  EXPECT_EQ(run_engine(source, {&sink}, EngineOptions{.poll_interval_ns = kMs}, err), kExitOk);
  EXPECT_EQ(sink.raws.size(), 2u);
  EXPECT_TRUE(source.stopped);
  EXPECT_EQ(err.str(), "");
}

TEST(RunEngineTest, a_source_error_is_printed_and_exits_1) {
  testing::FakeCounterSource source;
  source.never_finish = true;
  source.batches.emplace_back(core::fail(core::ErrorCode::Unavailable, "GPU 0 is gone", "check dmesg"));
  std::ostringstream err;
  EXPECT_EQ(run_engine(source, {}, EngineOptions{.poll_interval_ns = kMs}, err), kExitFailure);
  EXPECT_NE(err.str().find("solscope: error: GPU 0 is gone"), std::string::npos) << err.str();
  EXPECT_TRUE(source.stopped);
}

}  // namespace
}  // namespace solscope::app
