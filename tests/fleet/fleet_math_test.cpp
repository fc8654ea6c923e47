// The fleet arithmetic (fleet/fleet_math.hpp): window figures, busy-idle GPU-hours, stragglers, sort, filter.
#include "fleet/fleet_math.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace solscope::fleet {
namespace {

constexpr std::int64_t kStep = 15'000'000'000;

auto point(double compute, double memory, double util) -> HistoryPoint {
  return HistoryPoint{.t_ns = 0, .compute_sol_pct = compute, .memory_sol_pct = memory, .gpu_util_pct = util};
}

auto row(std::string host, std::string gpu, double compute_mean, std::string job = {}) -> FleetRow {
  FleetRow r;
  r.key.host = std::move(host);
  r.key.gpu = std::move(gpu);
  r.key.job = std::move(job);
  r.compute_sol_mean_pct = compute_mean;
  return r;
}

TEST(FleetMath, step_is_a_240th_of_the_window_and_at_least_15_s) {
  EXPECT_EQ(step_for_window_ns(3'600'000'000'000), 15'000'000'000);        // 1 h / 240 = 15 s
  EXPECT_EQ(step_for_window_ns(86'400'000'000'000), 360'000'000'000);      // 24 h / 240 = 6 min
  EXPECT_EQ(step_for_window_ns(60'000'000'000), 15'000'000'000);           // 1 min: the floor
  EXPECT_EQ(step_for_window_ns(7'200'000'000'000 + 240), 31'000'000'000);  // rounded up to whole seconds
  EXPECT_EQ(step_for_window_ns(0), 15'000'000'000);
}

TEST(FleetMath, window_figures_take_the_newest_known_value_and_the_mean_of_known_steps) {
  const std::vector<HistoryPoint> points = {point(10, 50, 90), point(30, core::kUnknown, 70),
                                            point(core::kUnknown, 20, 100)};
  const auto f = window_figures(points, kStep);
  EXPECT_DOUBLE_EQ(f.compute_sol_pct, 30);  // newest known
  EXPECT_DOUBLE_EQ(f.memory_sol_pct, 20);
  EXPECT_DOUBLE_EQ(f.gpu_util_pct, 100);
  EXPECT_DOUBLE_EQ(f.compute_sol_mean_pct, 20);
  EXPECT_DOUBLE_EQ(f.memory_sol_mean_pct, 35);
  EXPECT_DOUBLE_EQ(f.gpu_util_mean_pct, 260.0 / 3);
  // Only the first step is busy (90 > 80) and idle (10 < 20) with both known: 15 s = 1/240 h.
  EXPECT_DOUBLE_EQ(f.busy_idle_gpu_hours, 15.0 / 3600);
}

TEST(FleetMath, busy_idle_needs_strictly_above_80_and_strictly_below_20) {
  const std::vector<HistoryPoint> points = {point(19.9, 0, 80.1), point(20, 0, 99), point(5, 0, 80),
                                            point(0, 0, 100)};
  EXPECT_DOUBLE_EQ(window_figures(points, 60'000'000'000).busy_idle_gpu_hours, 2 * 60.0 / 3600);
}

TEST(FleetMath, unknown_figures_stay_unknown) {
  const auto f = window_figures({point(core::kUnknown, core::kUnknown, core::kUnknown)}, kStep);
  EXPECT_TRUE(std::isnan(f.compute_sol_pct));
  EXPECT_TRUE(std::isnan(f.compute_sol_mean_pct));
  EXPECT_EQ(f.busy_idle_gpu_hours, 0);
}

TEST(FleetMath, stragglers_are_more_than_the_threshold_below_their_group_median) {
  std::vector<FleetRow> rows = {row("a", "0", 60),
                                row("a", "1", 62),
                                row("a", "2", 40),
                                row("a", "3", 51),
                                row("b", "0", 10, "ns/train"),
                                row("c", "0", 50, "ns/train"),
                                row("c", "1", 55, "ns/train"),
                                row("d", "0", 5)};
  mark_stragglers(rows);
  // Host a: median of 60, 62, 40, 51 = 55.5.
  EXPECT_DOUBLE_EQ(rows[0].straggler_gap_pct, 4.5);
  EXPECT_DOUBLE_EQ(rows[2].straggler_gap_pct, -15.5);
  EXPECT_TRUE(rows[2].straggler);
  EXPECT_DOUBLE_EQ(rows[3].straggler_gap_pct, -4.5);
  EXPECT_FALSE(rows[3].straggler);
  // Job ns/train spans hosts b and c: median of 10, 50, 55 = 50.
  EXPECT_DOUBLE_EQ(rows[4].straggler_gap_pct, -40);
  EXPECT_TRUE(rows[4].straggler);
  EXPECT_DOUBLE_EQ(rows[5].straggler_gap_pct, 0);
  // Alone in its group: no gap.
  EXPECT_TRUE(std::isnan(rows[7].straggler_gap_pct));
  EXPECT_FALSE(rows[7].straggler);
  EXPECT_EQ(fleet_totals(rows).stragglers, 2u);
}

TEST(FleetMath, exactly_the_threshold_below_is_not_a_straggler) {
  std::vector<FleetRow> rows = {row("a", "0", 50), row("a", "1", 50 - kStragglerGapPct), row("a", "2", 50)};
  mark_stragglers(rows);
  EXPECT_DOUBLE_EQ(rows[1].straggler_gap_pct, -kStragglerGapPct);
  EXPECT_FALSE(rows[1].straggler);
}

TEST(FleetMath, sorts_with_unknown_last_and_hosts_in_natural_order) {
  std::vector<FleetRow> rows = {row("node10", "0", 30), row("node2", "1", core::kUnknown),
                                row("node2", "0", 50), row("node2", "10", 20), row("node2", "2", 20)};
  sort_rows(rows, SortKey::Host);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].key.host + "/" + rows[0].key.gpu, "node2/0");
  EXPECT_EQ(rows[1].key.gpu, "1");
  EXPECT_EQ(rows[2].key.gpu, "2");
  EXPECT_EQ(rows[3].key.gpu, "10");
  EXPECT_EQ(rows[4].key.host, "node10");
  sort_rows(rows, SortKey::ComputeSolMean);
  EXPECT_EQ(rows[0].key.gpu, "2");   // 20, tie broken by GPU
  EXPECT_EQ(rows[1].key.gpu, "10");  // 20
  EXPECT_DOUBLE_EQ(rows[2].compute_sol_mean_pct, 30);
  EXPECT_DOUBLE_EQ(rows[3].compute_sol_mean_pct, 50);
  EXPECT_TRUE(std::isnan(rows[4].compute_sol_mean_pct));
}

TEST(FleetMath, busy_idle_sorts_most_first_and_keys_cycle) {
  std::vector<FleetRow> rows = {row("a", "0", 1), row("a", "1", 1)};
  rows[1].busy_idle_gpu_hours = 0.5;
  sort_rows(rows, SortKey::BusyIdle);
  EXPECT_EQ(rows[0].key.gpu, "1");
  SortKey k = SortKey::Host;
  for (std::size_t i = 0; i < kSortKeyCount; ++i) k = next_sort_key(k);
  EXPECT_EQ(k, SortKey::Host);
  EXPECT_EQ(next_sort_key(SortKey::Host), SortKey::ComputeSolMean);
  EXPECT_EQ(parse_sort_key("busy-idle"), SortKey::BusyIdle);
  EXPECT_EQ(parse_sort_key(sort_key_name(SortKey::StragglerGap)), SortKey::StragglerGap);
  EXPECT_FALSE(parse_sort_key("fastest").has_value());
}

TEST(FleetMath, filter_matches_any_key_field_case_insensitively) {
  std::vector<FleetRow> rows = {row("Node-A", "0", 1), row("node-b", "1", 1, "ml/trainer-7"),
                                row("c", "2", 1)};
  rows[2].key.model_name = "NVIDIA H100 80GB HBM3";
  EXPECT_EQ(filter_rows(rows, "NODE").size(), 2u);
  EXPECT_EQ(filter_rows(rows, "trainer"), std::vector<std::size_t>{1});
  EXPECT_EQ(filter_rows(rows, "h100"), std::vector<std::size_t>{2});
  EXPECT_EQ(filter_rows(rows, "").size(), 3u);
  EXPECT_TRUE(filter_rows(rows, "zzz").empty());
}

TEST(FleetMath, totals_add_busy_idle_hours_and_average_known_means) {
  std::vector<FleetRow> rows = {row("a", "0", 10), row("a", "1", core::kUnknown), row("a", "2", 30)};
  rows[0].busy_idle_gpu_hours = 0.25;
  rows[2].busy_idle_gpu_hours = 0.5;
  const auto t = fleet_totals(rows);
  EXPECT_EQ(t.gpus, 3u);
  EXPECT_DOUBLE_EQ(t.busy_idle_gpu_hours, 0.75);
  EXPECT_DOUBLE_EQ(t.compute_sol_mean_pct, 20);
}

// Issue 24: the workload roll-up's arithmetic (fleet --by).
TEST(FleetMath, workload_rows_turn_seconds_and_steps_into_gpu_hours_and_sort_by_waste) {
  const WorkloadRow a = workload_row("team-a",
                                     WorkloadSums{.gpus = 2,
                                                  .allocated_seconds = 7200,
                                                  .idle_seconds = 1800,
                                                  .busy_idle_steps = 60,
                                                  .compute_sol_sum_pct = 482 * 40.0,
                                                  .compute_sol_steps = 482},
                                     kStep);
  EXPECT_EQ(a.group, "team-a");
  EXPECT_EQ(a.gpus, 2u);
  EXPECT_DOUBLE_EQ(a.allocated_gpu_hours, 2.0);
  EXPECT_DOUBLE_EQ(a.idle_gpu_hours, 0.5);
  EXPECT_DOUBLE_EQ(a.busy_idle_gpu_hours, 0.25);  // 60 steps of 15 s
  EXPECT_DOUBLE_EQ(a.wasted_gpu_hours, 0.75);
  EXPECT_DOUBLE_EQ(a.compute_sol_mean_pct, 40.0);
  // No Compute SOL step: unknown, never 0; NaN and negative sums count as 0.
  const WorkloadRow b = workload_row("team-b",
                                     WorkloadSums{.gpus = 1,
                                                  .allocated_seconds = 3600,
                                                  .idle_seconds = std::nan(""),
                                                  .busy_idle_steps = -3,
                                                  .compute_sol_sum_pct = 0,
                                                  .compute_sol_steps = 0},
                                     kStep);
  EXPECT_DOUBLE_EQ(b.idle_gpu_hours, 0);
  EXPECT_DOUBLE_EQ(b.busy_idle_gpu_hours, 0);
  EXPECT_TRUE(std::isnan(b.compute_sol_mean_pct));
  WorkloadRow c = b;
  c.group = "team-c";
  c.wasted_gpu_hours = 1.5;
  std::vector<WorkloadRow> rows = {b, a, c};
  sort_workloads(rows);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].group, "team-c");  // 1.5 wasted
  EXPECT_EQ(rows[1].group, "team-a");  // 0.75
  EXPECT_EQ(rows[2].group, "team-b");  // 0
  const WorkloadRow t = workload_totals(rows);
  EXPECT_EQ(t.gpus, 4u);
  EXPECT_DOUBLE_EQ(t.allocated_gpu_hours, 4.0);
  EXPECT_DOUBLE_EQ(t.wasted_gpu_hours, 2.25);
  EXPECT_DOUBLE_EQ(t.compute_sol_mean_pct, 40.0);  // the only known mean
}

TEST(FleetMath, group_by_names_round_trip_and_nothing_else_parses) {
  for (const auto by : {GroupBy::Namespace, GroupBy::Pod, GroupBy::Job}) {
    EXPECT_EQ(parse_group_by(group_by_name(by)), by);
  }
  EXPECT_EQ(group_by_name(GroupBy::Job), "job");
  EXPECT_FALSE(parse_group_by("Namespace").has_value());
  EXPECT_FALSE(parse_group_by("hpc_job").has_value());
  EXPECT_FALSE(parse_group_by("").has_value());
  EXPECT_EQ(group_by_names(), (std::vector<std::string>{"namespace", "pod", "job"}));
}

}  // namespace
}  // namespace solscope::fleet
