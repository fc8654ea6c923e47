// The fleet's JSON form (fleet/fleet_json.hpp): figures, null for unknown, thresholds and totals.
#include "fleet/fleet_json.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fleet/fleet_math.hpp"

namespace solscope::fleet {
namespace {

TEST(FleetJson, snapshot_carries_rows_nulls_thresholds_and_totals) {
  FleetSnapshot s;
  s.source = "prometheus at http://p:9090";
  s.window_start_ns = 1;
  s.window_end_ns = 3'600'000'000'001;
  s.step_ns = 15'000'000'000;
  s.notes = {"series limit 2 reached: 5 GPUs not shown"};
  FleetRow r;
  r.key = GpuKey{.host = "h", .gpu = "3", .uuid = "GPU-1", .model_name = "NVIDIA H100", .job = "ns/p"};
  r.series = SeriesKind::Dcgm;
  r.compute_sol_pct = 12.5;
  r.compute_sol_mean_pct = 10;
  r.busy_idle_gpu_hours = 0.25;
  r.straggler = true;
  r.straggler_gap_pct = -30;
  s.rows.push_back(r);
  const auto doc = nlohmann::json::parse(snapshot_json(s));
  EXPECT_EQ(doc["source"], "prometheus at http://p:9090");
  EXPECT_EQ(doc["step_ns"], 15'000'000'000);
  EXPECT_EQ(doc["notes"][0], "series limit 2 reached: 5 GPUs not shown");
  EXPECT_EQ(doc["thresholds"]["busy_util_pct"], kBusyUtilPct);
  EXPECT_EQ(doc["thresholds"]["straggler_gap_pct"], kStragglerGapPct);
  EXPECT_EQ(doc["totals"]["gpus"], 1);
  EXPECT_EQ(doc["totals"]["stragglers"], 1);
  ASSERT_EQ(doc["rows"].size(), 1u);
  const auto& row = doc["rows"][0];
  EXPECT_EQ(row["host"], "h");
  EXPECT_EQ(row["gpu"], "3");
  EXPECT_EQ(row["job"], "ns/p");
  EXPECT_EQ(row["series"], "dcgm");
  EXPECT_EQ(row["compute_sol_pct"], 12.5);
  EXPECT_TRUE(row["memory_sol_pct"].is_null());
  EXPECT_EQ(row["busy_idle_gpu_hours"], 0.25);
  EXPECT_EQ(row["straggler_gap_pct"], -30);
  EXPECT_EQ(row["straggler"], true);
}

TEST(FleetJson, history_lists_points_in_order) {
  GpuHistory h;
  h.key.host = "h";
  h.key.gpu = "0";
  h.points = {{.t_ns = 1, .compute_sol_pct = 5, .memory_sol_pct = core::kUnknown, .gpu_util_pct = 90},
              {.t_ns = 2, .compute_sol_pct = 6, .memory_sol_pct = 1, .gpu_util_pct = 91}};
  const auto doc = nlohmann::json::parse(history_json(h));
  EXPECT_EQ(doc["series"], "solscope");
  ASSERT_EQ(doc["points"].size(), 2u);
  EXPECT_EQ(doc["points"][1]["t_ns"], 2);
  EXPECT_TRUE(doc["points"][0]["memory_sol_pct"].is_null());
  EXPECT_EQ(doc["points"][0]["gpu_util_pct"], 90);
}

TEST(FleetJson, workloads_carry_rows_totals_and_nulls) {
  WorkloadRollup r;
  r.by = GroupBy::Pod;
  r.source = "prometheus at http://p:9090";
  r.step_ns = 15'000'000'000;
  r.rows.push_back(WorkloadRow{.group = "ml/train-1",
                               .gpus = 2,
                               .allocated_gpu_hours = 2,
                               .idle_gpu_hours = 0.5,
                               .busy_idle_gpu_hours = 0.25,
                               .wasted_gpu_hours = 0.75,
                               .compute_sol_mean_pct = core::kUnknown});
  const auto doc = nlohmann::json::parse(workloads_json(r));
  EXPECT_EQ(doc["by"], "pod");
  EXPECT_EQ(doc["step_ns"], 15'000'000'000);
  EXPECT_EQ(doc["thresholds"]["idle_compute_sol_pct"], kIdleComputeSolPct);
  ASSERT_EQ(doc["rows"].size(), 1u);
  EXPECT_EQ(doc["rows"][0]["group"], "ml/train-1");
  EXPECT_EQ(doc["rows"][0]["gpus"], 2);
  EXPECT_EQ(doc["rows"][0]["wasted_gpu_hours"], 0.75);
  EXPECT_TRUE(doc["rows"][0]["compute_sol_mean_pct"].is_null());
  EXPECT_EQ(doc["totals"]["idle_gpu_hours"], 0.5);
  EXPECT_FALSE(doc["totals"].contains("group"));
}

}  // namespace
}  // namespace solscope::fleet
