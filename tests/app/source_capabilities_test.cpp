// The optional capabilities of a CounterSource (issue 10, item 19): the app reaches processes and playback
// through the interface, so any source that offers them works, not only the NVIDIA and trace sources.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "runtime/live_feed.hpp"
#include "runtime/process_refresh.hpp"
#include "runtime/replay_controls.hpp"
#include "support/fake_counter_source.hpp"

namespace solscope::app {
namespace {

constexpr std::int64_t kMs = 1'000'000;

template <typename Predicate>
auto eventually(Predicate done) -> bool {
  for (int i = 0; i < 500 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return done();
}

void add_one_gpu(core::LiveState& state) {
  core::DeviceState device;
  device.info.index = 0;
  device.info.name = "fake";
  state.set_devices({device});
}

TEST(SourceCapabilitiesTest, processes_come_from_any_source_that_lists_them) {
  testing::FakeCounterSource source;
  source.never_finish = true;
  source.lists_processes = true;
  const auto self = static_cast<std::int32_t>(::getpid());
  source.processes[0] = {sources::DeviceProcess{.pid = self, .gpu_memory_bytes = 3 << 20},
                         sources::DeviceProcess{.pid = self, .gpu_memory_bytes = std::nullopt}};
  core::LiveState state;
  add_one_gpu(state);
  const std::atomic<bool> external_stop{false};
  BackgroundEngine engine(source, {}, EngineOptions{.poll_interval_ns = kMs}, external_stop);
  const ProcessRefresher refresher(engine, state, {}, std::chrono::milliseconds(5));
  ASSERT_TRUE(eventually([&] { return state.snapshot(0)->state.processes.size() == 2; }));
  const auto processes = state.snapshot(0)->state.processes;
  EXPECT_EQ(processes[0].pid, self);
  EXPECT_EQ(processes[0].gpu_memory_bytes, 3U << 20);
  EXPECT_EQ(processes[1].gpu_memory_bytes, 0U);  // unknown memory shows as 0
  EXPECT_FALSE(processes[0].command.empty());    // attributed from /proc/<pid>
}

TEST(SourceCapabilitiesTest, a_source_without_the_capability_gets_no_processes) {
  testing::FakeCounterSource source;
  source.never_finish = true;
  source.processes[0] = {sources::DeviceProcess{.pid = 1, .gpu_memory_bytes = 1}};  // not offered
  core::LiveState state;
  add_one_gpu(state);
  const std::atomic<bool> external_stop{false};
  BackgroundEngine engine(source, {}, EngineOptions{.poll_interval_ns = kMs}, external_stop);
  std::atomic<int> notes{0};
  {
    const ProcessRefresher refresher(
        engine, state, [&notes](std::uint32_t) { return "note " + std::to_string(++notes); },
        std::chrono::milliseconds(5));
    ASSERT_TRUE(eventually([&] { return notes.load() >= 3; }));
  }
  EXPECT_EQ(source.process_lister(), nullptr);
  EXPECT_EQ(state.snapshot(0)->state.processes.size(), 0U);
}

TEST(SourceCapabilitiesTest, replay_controls_drive_any_source_with_a_playback_clock) {
  auto owned = std::make_unique<testing::FakeCounterSource>();
  owned->never_finish = true;
  owned->plays_back = true;
  testing::FakeCounterSource& fake = *owned;
  AdjustableReplaySource source(std::move(owned));
  ASSERT_EQ(source.playback(), &fake);
  core::LiveState state;
  const std::atomic<bool> external_stop{false};
  BackgroundEngine engine(source, {}, EngineOptions{.poll_interval_ns = kMs}, external_stop);
  ReplayControls controls(engine, source, state, 1'000 * kMs, 61'000 * kMs, 1.0);

  controls.set_paused(true);
  ASSERT_TRUE(eventually([&] { return fake.is_paused; }));
  controls.change_speed(2);
  ASSERT_TRUE(eventually([&] { return fake.speed == 4.0; }));
  controls.seek_by(10'000 * kMs);  // from the first sample: nothing played yet
  ASSERT_TRUE(eventually([&] { return !fake.seeks.empty(); }));
  engine.stop();
  EXPECT_EQ(fake.seeks.front(), 11'000 * kMs);
  EXPECT_FALSE(fake.is_paused);  // a seek resumes playback
  EXPECT_EQ(controls.status_text(), "-/1:00 x4");
}

}  // namespace
}  // namespace solscope::app
