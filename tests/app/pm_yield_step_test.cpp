// The PM yield at run time (src/runtime/pm_yield_driver.hpp): the yield step against a fake CounterSource
// offering CounterYield, on a clock the test sets; the system-wide-lock rule; the profiler watch over a fake
// /proc.
#include "runtime/pm_yield_driver.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/sampling_options.hpp"
#include "runtime/source_factory.hpp"
#include "support/fake_counter_source.hpp"
#include "support/scratch_dir.hpp"

namespace solscope::app {
namespace {

using core::PmPauseReason;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using Call = std::pair<std::uint32_t, PmPauseReason>;

constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kT0 = 1'800'000'000LL * kS;  // any wall time

auto device(std::uint32_t index, std::string chip) -> core::DeviceInfo {
  core::DeviceInfo d;
  d.index = index;
  d.uuid = "GPU-" + std::to_string(index);
  d.chip = std::move(chip);
  return d;
}

/// A fake source of two H100s that yields its counters, a board, and a step on a clock the test moves.
struct Rig {
  explicit Rig(core::PmPolicy policy = core::PmPolicy::kYield)
      : board(std::make_shared<core::PmYieldBoard>(policy)), step(board, [this] { return now_ns; }) {
    source.devices_list = {device(0, "GH100"), device(1, "GH100")};
    source.yields_counters = true;
  }
  void sighting(std::vector<std::uint32_t> devices) {
    board->observe(now_ns, {core::ProfilerSighting{.reason = PmPauseReason::kProfiler,
                                                   .what = "ncu (pid 4242)",
                                                   .devices = std::move(devices)}});
  }
  auto poll_one(std::uint32_t device) -> core::RawSample {
    source.batches.push_back(std::vector<core::RawSample>{core::RawSample{.device_index = device}});
    return source.poll()->front();
  }

  std::int64_t now_ns = kT0;
  testing::FakeCounterSource source;
  std::shared_ptr<core::PmYieldBoard> board;
  PmYieldStep step;
};

TEST(PmYieldStepTest, a_profiler_pauses_the_devices_it_reaches_and_they_resume_once_it_is_gone) {
  Rig rig;
  rig.step.run(rig.source);
  EXPECT_THAT(rig.source.pause_calls, IsEmpty());  // nothing applies: nothing to do
  rig.sighting({1});
  rig.step.run(rig.source);
  EXPECT_THAT(rig.source.pause_calls, ElementsAre(Call{1, PmPauseReason::kProfiler}));
  const core::RawSample paused = rig.poll_one(1);
  EXPECT_EQ(paused.pm_pause, PmPauseReason::kProfiler);
  EXPECT_NE(paused.flags & core::kSamplePmPaused, 0u);
  EXPECT_EQ(rig.poll_one(0).pm_pause, PmPauseReason::kNone);
  // Seen last at kT0: still held 1.9 s later (nothing new applied), gone at kProfilerGoneAfterNs.
  rig.now_ns = kT0 + core::kProfilerGoneAfterNs - kS / 10;
  rig.board->observe(rig.now_ns, {});
  rig.step.run(rig.source);
  EXPECT_EQ(rig.source.pause_calls.size(), 1u);
  rig.now_ns = kT0 + core::kProfilerGoneAfterNs;
  rig.step.run(rig.source);
  EXPECT_THAT(rig.source.pause_calls,
              ElementsAre(Call{1, PmPauseReason::kProfiler}, Call{1, PmPauseReason::kNone}));
  EXPECT_EQ(rig.poll_one(1).pm_pause, PmPauseReason::kNone);
}

TEST(PmYieldStepTest, counters_taken_during_a_poll_reach_the_board_and_are_retried_after_3_s) {
  Rig rig;
  rig.source.busy_pending = {{0, "CUPTI: the counters are in use"}};
  rig.step.run(rig.source);
  EXPECT_EQ(rig.step.applied(0), PmPauseReason::kCountersBusy);
  EXPECT_THAT(rig.source.pause_calls, IsEmpty());  // the source already paused it
  EXPECT_EQ(rig.board->decide(0, rig.now_ns).reason, PmPauseReason::kCountersBusy);
  rig.now_ns += core::kCountersBusyRetryNs;
  rig.step.run(rig.source);
  EXPECT_THAT(rig.source.pause_calls, ElementsAre(Call{0, PmPauseReason::kNone}));
  EXPECT_EQ(rig.step.applied(0), PmPauseReason::kNone);
}

TEST(PmYieldStepTest, a_resume_refused_as_unavailable_marks_the_counters_busy) {
  Rig rig;
  rig.sighting({});
  rig.step.run(rig.source);
  EXPECT_EQ(rig.step.applied(0), PmPauseReason::kProfiler);
  EXPECT_EQ(rig.step.applied(1), PmPauseReason::kProfiler);
  rig.source.resume_unavailable = true;
  rig.now_ns += core::kProfilerGoneAfterNs;
  rig.step.run(rig.source);
  EXPECT_EQ(rig.step.applied(0), PmPauseReason::kCountersBusy);
  EXPECT_EQ(rig.board->decide(0, rig.now_ns).reason, PmPauseReason::kCountersBusy);
  EXPECT_EQ(rig.poll_one(0).pm_pause, PmPauseReason::kCountersBusy);
  // No new try until the board's retry time; then it resumes.
  const auto calls = rig.source.pause_calls.size();
  rig.now_ns += core::kCountersBusyRetryNs - 1;
  rig.step.run(rig.source);
  EXPECT_EQ(rig.source.pause_calls.size(), calls);
  rig.source.resume_unavailable = false;
  rig.now_ns += 1;
  rig.step.run(rig.source);
  EXPECT_EQ(rig.step.applied(0), PmPauseReason::kNone);
  EXPECT_EQ(rig.poll_one(0).pm_pause, PmPauseReason::kNone);
}

TEST(PmYieldStepTest, hold_ignores_profilers_and_never_pauses_every_device_with_reason_policy) {
  Rig hold(core::PmPolicy::kHold);
  hold.sighting({});
  hold.step.run(hold.source);
  EXPECT_THAT(hold.source.pause_calls, IsEmpty());
  Rig never(core::PmPolicy::kNever);
  never.step.run(never.source);
  EXPECT_THAT(never.source.pause_calls,
              ElementsAre(Call{0, PmPauseReason::kPolicy}, Call{1, PmPauseReason::kPolicy}));
  const core::RawSample s = never.poll_one(0);
  EXPECT_EQ(s.pm_pause, PmPauseReason::kPolicy);
  EXPECT_EQ(s.source, core::SourceKind::Gpm);
}

TEST(PmYieldStepTest, policy_never_asks_the_source_for_no_pm_sampling_at_all) {
  CommonOptions common;
  EXPECT_EQ(source_config_from(common)->best_source, core::SourceKind::PmSampling);
  common.pm_policy = core::PmPolicy::kNever;
  EXPECT_EQ(source_config_from(common)->best_source, core::SourceKind::Gpm);
  EXPECT_FALSE(pm_yield_setup(core::PmPolicy::kYield, /*live=*/false).board);  // a replay yields nothing
  EXPECT_EQ(pm_yield_setup(core::PmPolicy::kHold, /*live=*/true).board->policy(), core::PmPolicy::kHold);
}

TEST(PmYieldStepTest, the_policy_mark_keeps_a_reason_the_source_gave) {
  core::RawSample s;
  mark_policy_pause(s);
  EXPECT_EQ(s.pm_pause, PmPauseReason::kPolicy);
  EXPECT_NE(s.flags & core::kSamplePmPaused, 0u);
  core::RawSample busy;
  busy.pm_pause = PmPauseReason::kCountersBusy;
  busy.flags = core::kSamplePmPaused;
  mark_policy_pause(busy);
  EXPECT_EQ(busy.pm_pause, PmPauseReason::kCountersBusy);
}

TEST(PmYieldStepTest, a_source_without_counter_yield_is_left_alone) {
  Rig rig;
  rig.source.yields_counters = false;
  rig.sighting({});
  rig.step.run(rig.source);
  EXPECT_THAT(rig.source.pause_calls, IsEmpty());
}

TEST(PmYieldStepTest, a_sighting_on_a_chip_with_a_system_wide_lock_reaches_every_device) {
  const std::vector<core::ProfilerSighting> seen{
      {.reason = PmPauseReason::kProfiler, .what = "ncu", .devices = {1}}};
  EXPECT_THAT(apply_system_wide_lock(seen, {device(0, "GH100"), device(1, "GH100")})[0].devices,
              ElementsAre(1u));
  EXPECT_THAT(apply_system_wide_lock(seen, {device(0, "GA100"), device(1, "GH100")})[0].devices, IsEmpty());
  EXPECT_TRUE(perfmon_lock_is_system_wide("GA102"));
  EXPECT_TRUE(perfmon_lock_is_system_wide("TU104"));
  EXPECT_FALSE(perfmon_lock_is_system_wide("AD102"));
  EXPECT_FALSE(perfmon_lock_is_system_wide("GB100"));
  EXPECT_FALSE(perfmon_lock_is_system_wide(""));
}

TEST(PmYieldStepTest, the_watch_tells_the_board_what_each_scan_saw_and_stops_within_100_ms) {
  testing::ScratchDir proc("solscope-watch");
  std::filesystem::create_directories(proc.path() / "4242");
  std::ofstream(proc.path() / "4242" / "comm") << "ncu\n";
  std::ofstream(proc.path() / "4242" / "cmdline") << std::string("ncu\0./app\0", 10);
  auto board = std::make_shared<core::PmYieldBoard>();
  auto watch = std::make_unique<ProfilerWatch>(board, std::vector<core::DeviceInfo>{device(0, "GH100")},
                                               proc.path(), EpochClock{}, core::kProfilerScanIntervalNs);
  for (int i = 0; i < 200 && watch->scans() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_GE(watch->scans(), 1u);
  ASSERT_EQ(board->last_seen().size(), 1u);
  EXPECT_EQ(board->last_seen()[0].what, "ncu (pid 4242)");
  EXPECT_EQ(board->decide(0, system_epoch_ns()).reason, PmPauseReason::kProfiler);
  const auto before = std::chrono::steady_clock::now();
  watch.reset();  // mid-wait: the 500 ms period must not delay the stop
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::milliseconds(100));
}

}  // namespace
}  // namespace solscope::app
