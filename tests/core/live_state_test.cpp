#include "core/live_state.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

#include "core/derive.hpp"

namespace solscope::core {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kS = 1'000'000'000;

auto sample(std::uint32_t device, std::int64_t start_ns, std::int64_t end_ns, double tensor, double dram,
            double util = 100.0) -> SolSample {
  RawSample raw;
  raw.device_index = device;
  raw.t_start_ns = start_ns;
  raw.t_end_ns = end_ns;
  raw.source = SourceKind::PmSampling;
  raw.set(MetricId::TensorPipe, tensor);
  raw.set(MetricId::DramThroughput, dram);
  raw.set(MetricId::GrActive, 100.0);
  raw.set(MetricId::GpuUtil, util);
  return derive(raw, DeviceInfo{});
}

auto device(std::uint32_t index, std::string name) -> DeviceState {
  DeviceState d;
  d.info.index = index;
  d.info.name = std::move(name);
  d.source = SourceKind::PmSampling;
  return d;
}

TEST(LiveStateTest, windows_close_when_a_later_window_starts) {
  LiveState state;
  state.set_devices({device(0, "H100")});
  for (int i = 0; i < 10; ++i) state.add(sample(0, i * 100 * kMs, (i + 1) * 100 * kMs, 40, 10));
  // Ten samples of window 0; none complete yet: the latest window is the open one.
  auto snap = state.snapshot(0);
  ASSERT_TRUE(snap.has_value());
  ASSERT_TRUE(snap->latest_window.has_value());
  EXPECT_DOUBLE_EQ(snap->latest_window->compute_sol_pct, 40.0);
  EXPECT_TRUE(state.windows(0, 0).empty());
  state.add(sample(0, kS, kS + 100 * kMs, 80, 10));
  const auto windows = state.windows(0, 0);
  ASSERT_EQ(windows.size(), 1U);
  EXPECT_EQ(windows[0].t_start_ns, 0);
  EXPECT_EQ(windows[0].t_end_ns, kS);
  EXPECT_DOUBLE_EQ(windows[0].compute_sol_pct, 40.0);
  // The latest complete window wins over the open one once it exists.
  EXPECT_DOUBLE_EQ(state.snapshot(0)->latest_window->compute_sol_pct, 40.0);
  EXPECT_DOUBLE_EQ(state.snapshot(0)->latest->compute_sol_pct, 80.0);
  EXPECT_EQ(state.snapshot(0)->state.info.name, "H100");
}

TEST(LiveStateTest, busy_counters_integrate_percent_times_seconds) {
  LiveState state;
  state.add(sample(3, 0, 250 * kMs, 80, 20, 100));          // 0.25 s at 80% tensor
  state.add(sample(3, 250 * kMs, 1000 * kMs, 40, 60, 50));  // 0.75 s at 40%
  const auto c = state.snapshot(3)->counters;
  EXPECT_DOUBLE_EQ(c.sampled_seconds, 1.0);
  EXPECT_NEAR(c.compute_sol_seconds, 0.8 * 0.25 + 0.4 * 0.75, 1e-12);
  EXPECT_NEAR(c.pipe_seconds[static_cast<std::size_t>(Pipe::Tensor)], 0.5, 1e-12);
  EXPECT_NEAR(c.memory_sol_seconds, 0.2 * 0.25 + 0.6 * 0.75, 1e-12);
  EXPECT_NEAR(c.gpu_util_seconds, 0.25 + 0.5 * 0.75, 1e-12);
  EXPECT_DOUBLE_EQ(c.compute_sol_known_seconds, 1.0);
  // FMA was never measured: its busy time stays 0 and so does the time it was known.
  EXPECT_DOUBLE_EQ(c.pipe_known_seconds[static_cast<std::size_t>(Pipe::Fma)], 0.0);
  EXPECT_EQ(c.samples, 2U);
}

TEST(LiveStateTest, unknown_figures_do_not_count_as_idle) {
  BusyCounters c;
  SolSample s;
  s.t_start_ns = 0;
  s.t_end_ns = kS;
  accumulate(c, s);
  EXPECT_DOUBLE_EQ(c.sampled_seconds, 1.0);
  EXPECT_DOUBLE_EQ(c.compute_sol_known_seconds, 0.0);
  EXPECT_DOUBLE_EQ(c.compute_sol_seconds, 0.0);
}

// Issue 23: the seconds a GPU spent with PM sampling paused add up per reason, so that rate() of
// solscope_pm_paused_seconds_total is the fraction of time it yielded its counters.
TEST(LiveStateTest, paused_seconds_add_up_per_reason) {
  BusyCounters c;
  const auto add = [&c](std::int64_t start_ns, std::int64_t end_ns, PmPauseReason reason) {
    SolSample s;
    s.t_start_ns = start_ns;
    s.t_end_ns = end_ns;
    s.pm_pause = reason;
    accumulate(c, s);
  };
  add(0, 250 * kMs, PmPauseReason::kNone);
  add(250 * kMs, 1000 * kMs, PmPauseReason::kProfiler);
  add(1000 * kMs, 1500 * kMs, PmPauseReason::kManual);
  add(1500 * kMs, 2000 * kMs, PmPauseReason::kProfiler);
  const auto at = [&c](PmPauseReason r) { return c.pm_paused_seconds[static_cast<std::size_t>(r)]; };
  EXPECT_DOUBLE_EQ(at(PmPauseReason::kProfiler), 1.25);
  EXPECT_DOUBLE_EQ(at(PmPauseReason::kManual), 0.5);
  EXPECT_DOUBLE_EQ(at(PmPauseReason::kNone), 0.0) << "unpaused time is sampled_seconds, not a reason";
  EXPECT_DOUBLE_EQ(at(PmPauseReason::kDcgm), 0.0);
  EXPECT_DOUBLE_EQ(c.sampled_seconds, 2.0);
}

TEST(LiveStateTest, history_is_bounded_and_merges_windows) {
  LiveState state(LiveStateOptions{.window_ns = kS, .history_ns = 10 * kS});
  for (int i = 0; i < 31; ++i) state.add(sample(0, i * kS, (i + 1) * kS, i % 2 == 0 ? 20.0 : 60.0, 5));
  const auto all = state.windows(0, 0);
  ASSERT_EQ(all.size(), 10U);  // 30 complete windows, the newest 10 kept
  EXPECT_EQ(all.front().t_start_ns, 20 * kS);
  const auto merged = state.windows(0, 0, 2);
  ASSERT_EQ(merged.size(), 5U);
  for (const auto& w : merged) EXPECT_DOUBLE_EQ(w.compute_sol_pct, 40.0);
  const auto points = state.history(0, 25 * kS);
  ASSERT_EQ(points.size(), 5U);                           // windows ending after 25 s: 25-26 ... 29-30
  EXPECT_DOUBLE_EQ(points.back().compute_sol_pct, 60.0);  // window 29-30 s
  EXPECT_EQ(state.newest_ns(), 31 * kS);
}

TEST(LiveStateTest, windows_stop_at_max_count_with_the_oldest) {
  LiveState state(LiveStateOptions{.window_ns = kS, .history_ns = 10 * kS});
  for (int i = 0; i < 31; ++i) state.add(sample(0, i * kS, (i + 1) * kS, i % 2 == 0 ? 20.0 : 60.0, 5));
  const auto first3 = state.windows(0, 0, 1, true, 3);
  ASSERT_EQ(first3.size(), 3U);
  EXPECT_EQ(first3.front().t_start_ns, 20 * kS);
  EXPECT_EQ(first3.back().t_start_ns, 22 * kS);
  const auto merged2 = state.windows(0, 0, 2, true, 2);  // merged windows 20-22 s and 22-24 s
  ASSERT_EQ(merged2.size(), 2U);
  EXPECT_EQ(merged2.back().t_start_ns, 22 * kS);
  EXPECT_DOUBLE_EQ(merged2.back().compute_sol_pct, 40.0);
  EXPECT_EQ(state.windows(0, 0, 1, true, 100).size(), 11U);  // 10 complete + the open one
}

TEST(LiveStateTest, device_facts_update_and_bump_the_version) {
  LiveState state;
  state.set_devices({device(0, "A"), device(1, "B")});
  const auto v0 = state.version();
  state.set_processes(1, {GpuProcess{.pid = 42,
                                     .user = "alice",
                                     .gpu_memory_bytes = 1 << 20,
                                     .command = "python serve.py",
                                     .container_id = ""}});
  state.set_workload_note(0, "vLLM Llama-3.1-8B decode");
  state.set_lost(1, true);
  state.set_processes(7, {});  // unknown device: ignored
  EXPECT_GT(state.version(), v0);
  const auto devices = state.devices();
  ASSERT_EQ(devices.size(), 2U);
  EXPECT_EQ(devices[0].workload_note, "vLLM Llama-3.1-8B decode");
  ASSERT_EQ(devices[1].processes.size(), 1U);
  EXPECT_EQ(devices[1].processes[0].user, "alice");
  EXPECT_TRUE(devices[1].lost);
}

TEST(LiveStateTest, one_device_snapshot_is_that_device_or_none) {
  LiveState state;
  state.set_devices({device(0, "A"), device(1, "B"), device(2, "C")});
  state.add(sample(1, 0, 100 * kMs, 30, 5));
  state.add(sample(2, 0, 100 * kMs, 70, 5));
  const auto snap = state.snapshot(1);
  ASSERT_TRUE(snap.has_value());
  EXPECT_EQ(snap->state.info.name, "B");
  EXPECT_EQ(snap->counters.samples, 1U);
  ASSERT_TRUE(snap->latest.has_value());
  EXPECT_DOUBLE_EQ(snap->latest->compute_sol_pct, 30.0);
  EXPECT_FALSE(state.snapshot(9).has_value());
}

TEST(LiveStateTest, unchanged_device_facts_keep_the_version) {
  LiveState state;
  state.set_devices({device(0, "A")});
  const std::vector<GpuProcess> processes{
      GpuProcess{.pid = 7, .user = "bob", .gpu_memory_bytes = 0, .command = "train", .container_id = ""}};
  state.set_processes(0, processes);
  state.set_workload_note(0, "note");
  state.set_lost(0, true);
  const auto v0 = state.version();
  state.set_processes(0, processes);
  state.set_workload_note(0, "note");
  state.set_lost(0, true);
  EXPECT_EQ(state.version(), v0);
  state.set_processes(0, {});
  EXPECT_GT(state.version(), v0);
  EXPECT_TRUE(state.devices()[0].processes.empty());
}

TEST(LiveStateTest, source_notes_follow_the_sources_status) {
  LiveState state;
  state.set_devices({device(0, "A")});
  const auto v0 = state.version();
  state.set_source_note(0, "no scrape since 10:00:00 UTC");
  EXPECT_EQ(state.devices()[0].source_note, "no scrape since 10:00:00 UTC");
  const auto v1 = state.version();
  EXPECT_GT(v1, v0);
  state.set_source_note(0, "no scrape since 10:00:00 UTC");  // unchanged: no new version
  state.set_source_note(5, "unknown device");                // ignored
  EXPECT_EQ(state.version(), v1);
  ASSERT_EQ(state.devices().size(), 1u);
}

TEST(LiveStateTest, clearing_samples_keeps_the_devices) {
  LiveState state;
  state.set_devices({device(0, "A")});
  state.set_workload_note(0, "note");
  for (int i = 0; i < 3; ++i) state.add(sample(0, i * kS, (i + 1) * kS, 50, 5));
  state.clear_samples();
  const auto snap = state.snapshot(0);
  ASSERT_TRUE(snap.has_value());
  EXPECT_EQ(snap->state.workload_note, "note");
  EXPECT_FALSE(snap->latest.has_value());
  EXPECT_EQ(snap->counters.samples, 0U);
  EXPECT_TRUE(state.windows(0, 0, 1, true).empty());
  EXPECT_EQ(state.newest_ns(), 0);
}

TEST(LiveStateTest, each_closed_window_is_handed_out_once_with_a_growing_number) {
  LiveState state;
  state.set_devices({device(0, "A"), device(1, "B")});
  EXPECT_FALSE(state.newest_closed_window(0, 0).has_value());
  EXPECT_FALSE(state.newest_closed_window(7, 0).has_value());  // unknown device
  std::uint64_t seen = 0;
  std::vector<SolSample> closed;
  // Window 0 of GPU 0: 40 % tensor for 0.6 s, then 90 % for 0.4 s; each add() is followed by a look.
  for (int i = 0; i < 10; ++i) {
    state.add(sample(0, i * 100 * kMs, (i + 1) * 100 * kMs, i < 6 ? 40 : 90, 10));
    if (auto w = state.newest_closed_window(0, seen)) {
      seen = w->number;
      closed.push_back(w->window);
    }
  }
  EXPECT_TRUE(closed.empty());  // the window is still open
  state.add(sample(1, 0, kS, 10, 10));
  state.add(sample(1, kS, 2 * kS, 10, 10));  // closes GPU 1's window 0 (number 1)
  state.add(sample(0, kS, kS + 100 * kMs, 80, 10));
  const auto first = state.newest_closed_window(0, seen);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->number, 2U);
  EXPECT_FALSE(state.newest_closed_window(0, first->number).has_value());  // seen: not again
  // The core's window: duration-weighted means and the bound classified from them.
  EXPECT_EQ(first->window.t_start_ns, 0);
  EXPECT_EQ(first->window.t_end_ns, kS);
  EXPECT_DOUBLE_EQ(first->window.compute_sol_pct, 0.6 * 40 + 0.4 * 90);
  EXPECT_EQ(first->window.bound, classify_bound(first->window));
  EXPECT_EQ(state.newest_closed_window(1, 0)->number, 1U);
  // After clear_samples() the numbers go on growing: a reader that saw 2 still gets the next window.
  state.clear_samples();
  EXPECT_FALSE(state.newest_closed_window(0, 0).has_value());
  state.add(sample(0, 5 * kS, 6 * kS, 20, 10));
  state.add(sample(0, 6 * kS, 7 * kS, 20, 10));
  const auto after = state.newest_closed_window(0, first->number);
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->number, 3U);
  EXPECT_EQ(after->window.t_start_ns, 5 * kS);
}

// Issue 25: a view attached to a daemon takes the daemon's iteration estimate; its own samples then feed
// none, and the estimate stays until the samples or devices are cleared. Unknown devices are ignored.
TEST(LiveStateTest, an_iteration_from_elsewhere_replaces_the_own_estimate_until_cleared) {
  LiveState state;
  state.set_devices({device(0, "A")});
  IterationEstimate daemon;
  daemon.periodic = true;
  daemon.period_s = 0.5;
  daemon.estimated_at_ns = 30 * kS;
  daemon.note = "";
  const std::uint64_t before = state.version();
  state.set_iteration(0, daemon);
  EXPECT_GT(state.version(), before);
  const std::uint64_t set = state.version();
  state.set_iteration(0, daemon);  // the same estimate again: no change
  EXPECT_EQ(state.version(), set);
  state.set_iteration(7, daemon);  // unknown device: ignored
  EXPECT_FALSE(state.snapshot(7).has_value());
  for (int i = 0; i < 400; ++i)
    state.add(sample(0, i * 10 * kMs, (i + 1) * 10 * kMs, i % 50 < 25 ? 90.0 : 0.0, 5.0));
  EXPECT_TRUE(state.snapshot(0)->iteration.periodic);
  EXPECT_EQ(state.snapshot(0)->iteration.period_s, 0.5);
  EXPECT_EQ(state.snapshot(0)->iteration.estimated_at_ns, 30 * kS);
  state.clear_samples();
  EXPECT_FALSE(state.snapshot(0)->iteration.periodic);
  state.set_iteration(0, daemon);
  state.set_devices({device(0, "A")});
  EXPECT_FALSE(state.snapshot(0)->iteration.periodic);
}

TEST(LiveStateTest, readers_and_a_writer_may_run_concurrently) {
  LiveState state;
  std::thread writer([&state] {
    for (int i = 0; i < 2000; ++i) state.add(sample(i % 4, i * 10 * kMs, (i + 1) * 10 * kMs, 50, 50));
  });
  std::uint64_t seen = 0;
  for (int i = 0; i < 200; ++i) {
    for (const auto& snap : state.snapshot()) seen += snap.counters.samples;
    (void)state.history(0, 0);
  }
  writer.join();
  std::uint64_t total = 0;
  for (const auto& snap : state.snapshot()) total += snap.counters.samples;
  EXPECT_EQ(total, 2000U);
  EXPECT_LE(seen, 200U * 2000U);
}

}  // namespace
}  // namespace solscope::core
