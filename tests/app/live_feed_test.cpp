#include "runtime/live_feed.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "support/fake_counter_source.hpp"

namespace solscope::app {
namespace {

constexpr std::int64_t kMs = 1'000'000;

auto raw(std::uint32_t device, std::int64_t start_ns, double tensor) -> core::RawSample {
  core::RawSample r;
  r.device_index = device;
  r.t_start_ns = start_ns;
  r.t_end_ns = start_ns + 100 * kMs;
  r.source = core::SourceKind::PmSampling;
  r.set(core::MetricId::TensorPipe, tensor);
  r.set(core::MetricId::GrActive, 100.0);
  return r;
}

auto wait_until_done(const BackgroundEngine& engine) -> bool {
  for (int i = 0; i < 500 && !engine.done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return engine.done();
}

TEST(LiveFeedTest, device_states_carry_source_reason_and_fix) {
  testing::FakeCounterSource source;
  source.devices_list = {core::DeviceInfo{.index = 2, .name = "NVIDIA A100"}};
  source.statuses[2] = sources::DeviceStatus{.source = core::SourceKind::NvmlOnly,
                                             .reason = "profiling is restricted to admin users",
                                             .hint = "run as root",
                                             .lost = false};
  const auto states = device_states_of(source);
  ASSERT_EQ(states.size(), 1U);
  EXPECT_EQ(states[0].info.name, "NVIDIA A100");
  EXPECT_EQ(states[0].source, core::SourceKind::NvmlOnly);
  EXPECT_EQ(states[0].source_note, "profiling is restricted to admin users; run as root");
}

TEST(LiveFeedTest, background_engine_feeds_the_live_state_and_the_listener) {
  testing::FakeCounterSource source;
  source.devices_list = {core::DeviceInfo{.index = 0, .name = "H100"}};
  source.batches.emplace_back(std::vector<core::RawSample>{raw(0, 0, 30), raw(0, 100 * kMs, 50)});
  source.batches.emplace_back(std::vector<core::RawSample>{raw(0, 200 * kMs, 70)});
  core::LiveState state;
  std::atomic<int> heard{0};
  LiveStateSink sink(state, source, [&heard](const core::SolSample&) { ++heard; });
  const std::atomic<bool> external_stop{false};
  BackgroundEngine engine(source, {&sink}, EngineOptions{.poll_interval_ns = kMs}, external_stop);
  ASSERT_TRUE(wait_until_done(engine));
  ASSERT_TRUE(engine.result().has_value());
  EXPECT_TRUE(engine.result()->has_value());
  EXPECT_EQ(heard.load(), 3);
  const auto snap = state.snapshot(0);
  ASSERT_TRUE(snap.has_value());
  EXPECT_EQ(snap->state.info.name, "H100");
  EXPECT_DOUBLE_EQ(snap->latest->compute_sol_pct, 70.0);
  EXPECT_DOUBLE_EQ(snap->latest_window->compute_sol_pct, 50.0);
}

TEST(LiveFeedTest, posted_commands_run_on_the_engine_thread_and_stop_ends_it) {
  testing::FakeCounterSource source;
  source.never_finish = true;
  core::LiveState state;
  LiveStateSink sink(state, source);
  const std::atomic<bool> external_stop{false};
  BackgroundEngine engine(source, {&sink}, EngineOptions{.poll_interval_ns = kMs}, external_stop);
  std::atomic<bool> ran{false};
  std::thread::id where;
  engine.post([&](sources::CounterSource& s) {
    where = std::this_thread::get_id();
    ran = (&s == &source);
  });
  for (int i = 0; i < 500 && !ran.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  engine.stop();
  EXPECT_TRUE(ran.load());
  EXPECT_NE(where, std::this_thread::get_id());
  EXPECT_TRUE(engine.done());
}

TEST(LiveFeedTest, an_external_stop_flag_ends_the_engine) {
  testing::FakeCounterSource source;
  source.never_finish = true;
  core::LiveState state;
  LiveStateSink sink(state, source);
  std::atomic<bool> external_stop{false};
  BackgroundEngine engine(source, {&sink}, EngineOptions{.poll_interval_ns = kMs}, external_stop);
  external_stop = true;
  EXPECT_TRUE(wait_until_done(engine));
}

}  // namespace
}  // namespace solscope::app
