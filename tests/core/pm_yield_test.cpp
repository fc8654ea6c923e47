// The PM yield state machine: manual pauses that always end, profilers that pause until 2 s after they were
// last seen, CUPTI's "counters taken" retried after 3 s, the precedence and the policies.
#include "core/pm_yield.hpp"

#include <gtest/gtest.h>

namespace solscope::core {
namespace {

constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kT0 = 1'700'000'000 * kS;

auto sighting(std::string what, std::vector<std::uint32_t> devices = {},
              PmPauseReason reason = PmPauseReason::kProfiler) -> ProfilerSighting {
  return {.reason = reason, .what = std::move(what), .devices = std::move(devices)};
}

TEST(PmYieldNames, round_trip_and_unknown_text) {
  for (const auto r : {PmPauseReason::kNone, PmPauseReason::kManual, PmPauseReason::kProfiler,
                       PmPauseReason::kDcgm, PmPauseReason::kCountersBusy, PmPauseReason::kPolicy}) {
    EXPECT_EQ(parse_pm_pause_reason(to_string(r)), r);
  }
  EXPECT_EQ(to_string(PmPauseReason::kCountersBusy), "counters_busy");
  EXPECT_EQ(parse_pm_pause_reason("busy"), std::nullopt);
  EXPECT_EQ(parse_pm_policy("yield"), PmPolicy::kYield);
  EXPECT_EQ(parse_pm_policy("hold"), PmPolicy::kHold);
  EXPECT_EQ(parse_pm_policy("never"), PmPolicy::kNever);
  EXPECT_EQ(parse_pm_policy("Yield"), std::nullopt);
}

TEST(PmYield, nothing_pauses_by_default) {
  const PmYield y;
  EXPECT_FALSE(y.decide(0, kT0).paused);
  EXPECT_EQ(y.decide(0, kT0).reason, PmPauseReason::kNone);
}

TEST(PmYield, a_manual_pause_ends_at_its_time_and_names_who_asked) {
  PmYield y;
  ASSERT_TRUE(y.pause({.by = "alice@node1", .since_ns = kT0, .until_ns = kT0 + 600 * kS, .devices = {1}}));
  const PmDecision d = y.decide(1, kT0 + 599 * kS);
  EXPECT_TRUE(d.paused);
  EXPECT_EQ(d.reason, PmPauseReason::kManual);
  EXPECT_EQ(d.detail, "by alice@node1");
  EXPECT_EQ(d.until_ns, kT0 + 600 * kS);
  EXPECT_FALSE(y.decide(0, kT0).paused) << "only the devices asked for";
  EXPECT_FALSE(y.decide(1, kT0 + 600 * kS).paused) << "ends exactly at until_ns";
  EXPECT_FALSE(y.manual(kT0 + 600 * kS).has_value());
}

TEST(PmYield, resume_ends_a_pause_and_says_whether_one_was_active) {
  PmYield y;
  ASSERT_TRUE(y.pause({.by = "", .since_ns = kT0, .until_ns = kT0 + kDefaultPmPauseNs, .devices = {}}));
  EXPECT_TRUE(y.decide(3, kT0 + kS).paused);
  EXPECT_TRUE(y.resume(kT0 + kS));
  EXPECT_FALSE(y.decide(3, kT0 + kS).paused);
  EXPECT_FALSE(y.resume(kT0 + 2 * kS));
}

TEST(PmYield, pauses_that_do_not_end_or_last_over_a_day_are_refused) {
  PmYield y;
  EXPECT_EQ(y.pause({.by = "", .since_ns = kT0, .until_ns = kT0, .devices = {}}).error().code,
            ErrorCode::InvalidArgument);
  EXPECT_EQ(
      y.pause({.by = "", .since_ns = kT0, .until_ns = kT0 + kMaxPmPauseNs + 1, .devices = {}}).error().code,
      ErrorCode::InvalidArgument);
  EXPECT_TRUE(y.pause({.by = "", .since_ns = kT0, .until_ns = kT0 + kMaxPmPauseNs, .devices = {}}));
  EXPECT_EQ(kDefaultPmPauseNs, 1800 * kS);
}

TEST(PmYield, a_profiler_pauses_until_two_seconds_after_it_was_last_seen) {
  PmYield y;
  y.observe(kT0, {sighting("ncu (pid 4242)")});
  EXPECT_EQ(y.decide(5, kT0).reason, PmPauseReason::kProfiler);
  EXPECT_EQ(y.decide(5, kT0).detail, "ncu (pid 4242)");
  y.observe(kT0 + kS / 2, {});  // gone from this scan
  EXPECT_TRUE(y.decide(5, kT0 + kS).paused) << "a scan that misses it once does not resume";
  EXPECT_TRUE(y.decide(5, kT0 + kProfilerGoneAfterNs - 1).paused);
  EXPECT_FALSE(y.decide(5, kT0 + kProfilerGoneAfterNs).paused);
  y.observe(kT0 + kProfilerGoneAfterNs, {});
  EXPECT_TRUE(y.last_seen().empty());
}

TEST(PmYield, a_profiler_pauses_only_the_devices_it_can_touch) {
  PmYield y;
  y.observe(kT0, {sighting("nsys (pid 7)", {2})});
  EXPECT_TRUE(y.decide(2, kT0).paused);
  EXPECT_FALSE(y.decide(0, kT0).paused);
}

TEST(PmYield, dcgm_profiling_pauses_with_its_own_reason) {
  PmYield y;
  y.observe(kT0, {sighting("nv-hostengine (pid 17) profiling module", {}, PmPauseReason::kDcgm)});
  EXPECT_EQ(y.decide(0, kT0).reason, PmPauseReason::kDcgm);
}

TEST(PmYield, counters_busy_is_retried_after_three_seconds) {
  PmYield y;
  y.counters_busy(1, kT0, "GPU counters held by another profiler");
  EXPECT_EQ(y.decide(1, kT0 + kCountersBusyRetryNs - 1).reason, PmPauseReason::kCountersBusy);
  EXPECT_FALSE(y.decide(0, kT0).paused);
  EXPECT_FALSE(y.decide(1, kT0 + kCountersBusyRetryNs).paused);
}

TEST(PmYield, precedence_is_policy_manual_profiler_dcgm_counters_busy) {
  PmYield y;
  y.counters_busy(0, kT0, "busy");
  y.observe(kT0, {sighting("dcgm", {}, PmPauseReason::kDcgm)});
  EXPECT_EQ(y.decide(0, kT0).reason, PmPauseReason::kDcgm);
  y.observe(kT0, {sighting("dcgm", {}, PmPauseReason::kDcgm), sighting("ncu (pid 1)")});
  EXPECT_EQ(y.decide(0, kT0).reason, PmPauseReason::kProfiler);
  ASSERT_TRUE(y.pause({.by = "bob", .since_ns = kT0, .until_ns = kT0 + kS, .devices = {}}));
  EXPECT_EQ(y.decide(0, kT0).reason, PmPauseReason::kManual);
  const PmYield never(PmPolicy::kNever);
  EXPECT_EQ(never.decide(0, kT0).reason, PmPauseReason::kPolicy);
}

TEST(PmYield, hold_ignores_profilers_but_keeps_manual_pauses_and_busy_counters) {
  PmYield y(PmPolicy::kHold);
  y.observe(kT0, {sighting("ncu (pid 1)")});
  EXPECT_FALSE(y.decide(0, kT0).paused);
  EXPECT_EQ(y.last_seen().size(), 1U) << "still shown in the status";
  y.counters_busy(0, kT0, "busy");
  EXPECT_EQ(y.decide(0, kT0).reason, PmPauseReason::kCountersBusy);
  ASSERT_TRUE(y.pause({.by = "", .since_ns = kT0, .until_ns = kT0 + kS, .devices = {}}));
  EXPECT_EQ(y.decide(0, kT0).reason, PmPauseReason::kManual);
}

TEST(PmYieldBoard, answers_as_the_state_machine_does) {
  PmYieldBoard board(PmPolicy::kYield);
  EXPECT_EQ(board.policy(), PmPolicy::kYield);
  board.observe(kT0, {sighting("ncu (pid 9)")});
  EXPECT_EQ(board.decide(0, kT0).reason, PmPauseReason::kProfiler);
  EXPECT_EQ(board.last_seen().size(), 1U);
  ASSERT_TRUE(board.pause({.by = "x", .since_ns = kT0, .until_ns = kT0 + kS, .devices = {}}));
  EXPECT_TRUE(board.manual(kT0).has_value());
  EXPECT_TRUE(board.resume(kT0));
  board.counters_busy(4, kT0, "busy");
  EXPECT_EQ(board.decide(4, kT0 + kProfilerGoneAfterNs).reason, PmPauseReason::kCountersBusy);
}

}  // namespace
}  // namespace solscope::core
