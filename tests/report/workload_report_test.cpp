// Per-workload totals of `solscope report` (issue 24) on the SYNTHETIC workloads scenario
// (tests/data/synthetic/workloads.hpp): a time-sliced GPU with two pods at 60/20 % SM and an exclusive GPU
// with a pod allocated but idle for 8 s. Every figure below follows from the scenario by hand.
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/derive.hpp"
#include "data/synthetic/workloads.hpp"
#include "report/detail/workload_totals.hpp"
#include "report/report_builder.hpp"
#include "report/report_json.hpp"
#include "report/report_test_support.hpp"
#include "report/report_text.hpp"

namespace solscope::report {
namespace {

/// The report of the scenario, its samples derived as `solscope report` derives a trace's.
auto scenario_report(bool with_workloads = true) -> Report {
  const std::vector<core::DeviceInfo> devices(synthetic::kWorkloadScenarioDevices);
  ReportBuilder builder(devices);
  const auto rows = synthetic::workload_scenario_intervals();
  if (with_workloads) builder.set_workloads(rows);
  for (const core::RawSample& raw : synthetic::workload_scenario_samples())
    builder.add(core::derive(raw, devices[raw.device_index]));
  return builder.finish(TraceFacts{.path = "workloads.sqlite", .synthetic = true, .workload_refresh = true});
}

TEST(WorkloadReport, time_sliced_and_exclusive_totals_are_exact) {
  const Report report = scenario_report();
  EXPECT_TRUE(report.workloads_recorded);
  ASSERT_EQ(report.workloads.size(), 3u);
  // Most GPU-seconds first. GPU 1's pod: 16 s held (8 allocated and idle, 8 running), nothing after 16 s.
  const WorkloadReport& etl = report.workloads[0];
  EXPECT_EQ(workload_label(etl.id), "batch/etl-c/worker");
  EXPECT_EQ(etl.sharing, core::WorkloadSharing::kExclusive);
  EXPECT_EQ(etl.devices, std::vector<std::uint32_t>{1});
  EXPECT_DOUBLE_EQ(etl.gpu_s, 16.0);
  EXPECT_DOUBLE_EQ(etl.idle_s, 8.0);
  EXPECT_DOUBLE_EQ(etl.compute_sol_pct, 32.5);  // (0 x 8 + 65 x 8) / 16
  EXPECT_DOUBLE_EQ(etl.memory_sol_pct, 10.0);   // (0 x 8 + 20 x 8) / 16
  EXPECT_DOUBLE_EQ(etl.energy_j, 3360.0);       // 70 W x 8 s + 350 W x 8 s
  // GPU 0, time-sliced 60/20: 0.75 and 0.25 of 20 s, of the energy (400 W x 10 s + 300 W x 10 s = 7000 J)
  // and of nothing idle; the mean SOL is the GPU's (80 and 40 % compute, 30 and 70 % memory, half each).
  const WorkloadReport& train = report.workloads[1];
  EXPECT_EQ(workload_label(train.id), "research/train-a/main");
  EXPECT_EQ(train.sharing, core::WorkloadSharing::kTimeSliced);
  EXPECT_EQ(train.devices, std::vector<std::uint32_t>{0});
  EXPECT_DOUBLE_EQ(train.gpu_s, 15.0);
  EXPECT_DOUBLE_EQ(train.compute_sol_pct, 60.0);
  EXPECT_DOUBLE_EQ(train.memory_sol_pct, 50.0);
  EXPECT_DOUBLE_EQ(train.energy_j, 5250.0);
  EXPECT_DOUBLE_EQ(train.idle_s, 0.0);
  const WorkloadReport& infer = report.workloads[2];
  EXPECT_EQ(workload_label(infer.id), "serving/infer-b/server");
  EXPECT_EQ(infer.sharing, core::WorkloadSharing::kTimeSliced);
  EXPECT_DOUBLE_EQ(infer.gpu_s, 5.0);
  EXPECT_DOUBLE_EQ(infer.compute_sol_pct, 60.0);
  EXPECT_DOUBLE_EQ(infer.memory_sol_pct, 50.0);
  EXPECT_DOUBLE_EQ(infer.energy_j, 1750.0);
  EXPECT_DOUBLE_EQ(infer.idle_s, 0.0);
  // The GPUs' own figures are untouched: GPU 1 had 12 idle seconds (8 allocated, 4 free).
  ASSERT_EQ(report.gpus.size(), 2u);
  EXPECT_EQ(report.gpus[1].bound_ns[bound_slot(core::Bound::Idle)], 12 * core::kNsPerS);
}

TEST(WorkloadReport, the_json_lists_every_workload_with_units_in_its_keys) {
  const auto json = to_json(scenario_report());
  ASSERT_TRUE(json["workloads"].is_array());
  ASSERT_EQ(json["workloads"].size(), 3u);
  const auto& w = json["workloads"][1];
  EXPECT_EQ(w["workload"], "research/train-a/main");
  EXPECT_EQ(w["pod"], "train-a");
  EXPECT_EQ(w["namespace"], "research");
  EXPECT_EQ(w["container"], "main");
  EXPECT_TRUE(w["hpc_job"].is_null());
  EXPECT_TRUE(w["user"].is_null());
  EXPECT_EQ(w["sharing"], "time_sliced");
  EXPECT_EQ(w["gpus"], nlohmann::ordered_json::array({0}));
  EXPECT_DOUBLE_EQ(w["gpu_s"].get<double>(), 15.0);
  EXPECT_DOUBLE_EQ(w["compute_sol_pct"].get<double>(), 60.0);
  EXPECT_DOUBLE_EQ(w["memory_sol_pct"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(w["energy_j"].get<double>(), 5250.0);
  EXPECT_DOUBLE_EQ(w["idle_s"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(json["workloads"][0]["idle_s"].get<double>(), 8.0);
}

TEST(WorkloadReport, the_text_has_a_workloads_section) {
  const std::string text = render_text(scenario_report());
  EXPECT_NE(
      text.find(
          "\nWorkloads (docs/report.md \"Workloads\"):\n"
          "  workload                     sharing     GPUs     GPU s   compute   memory  energy J  idle s\n"
          "  batch/etl-c/worker           exclusive   1         16.0    32.5 %   10.0 %    3360.0     8.0\n"
          "  research/train-a/main        time_sliced 0         15.0    60.0 %   50.0 %    5250.0     0.0\n"
          "  serving/infer-b/server       time_sliced 0          5.0    60.0 %   50.0 %    1750.0     0.0\n"),
      std::string::npos)
      << text;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    EXPECT_LE((end == std::string::npos ? text.size() : end) - start, kTextWidth);
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

TEST(WorkloadReport, a_trace_without_a_workloads_table_says_so) {
  const Report report = scenario_report(/*with_workloads=*/false);
  EXPECT_FALSE(report.workloads_recorded);
  EXPECT_TRUE(report.workloads.empty());
  EXPECT_TRUE(to_json(report)["workloads"].is_null());
  EXPECT_NE(render_text(report).find("\nWorkloads: not in this trace (recorded before trace schema 5)\n"),
            std::string::npos);
}

TEST(WorkloadReport, a_recorded_empty_table_is_told_apart) {
  ReportBuilder builder(std::span<const core::DeviceInfo>{});
  builder.set_workloads({});
  builder.add(testing::sample(0, 0, 1000, testing::Load{}));
  Report report = builder.finish(TraceFacts{.path = "none.sqlite", .workload_refresh = true});
  EXPECT_TRUE(report.workloads_recorded);
  EXPECT_TRUE(to_json(report)["workloads"].is_array());
  EXPECT_EQ(to_json(report)["workloads"].size(), 0u);
  EXPECT_NE(render_text(report).find("\nWorkloads: none seen while recording"), std::string::npos);
  // The same empty table that no refresh fed (a re-recorded replay): nothing is known, not "none".
  report.trace.workload_refresh = false;
  EXPECT_TRUE(to_json(report)["workloads"].is_null());
  EXPECT_FALSE(to_json(report)["trace"]["workload_refresh"].get<bool>());
  EXPECT_NE(render_text(report).find("\nWorkloads: not recorded (no process list while recording"),
            std::string::npos);
}

TEST(WorkloadReport, concurrent_workloads_count_whole_under_what_they_share) {
  // Two MPS clients of namespace "ml" on GPU 0: no split is invented; the seconds go whole to the identity
  // both agree on (core::workload_parts, as /metrics counts them).
  const std::array<core::ProcessWorkload, 2> mps{
      core::ProcessWorkload{.pid = 1,
                            .id = {.pod = "a", .pod_namespace = "ml"},
                            .origin = core::WorkloadOrigin::kKubelet,
                            .sm_pct = 30.0,
                            .mps = true},
      core::ProcessWorkload{.pid = 2,
                            .id = {.pod = "b", .pod_namespace = "ml"},
                            .origin = core::WorkloadOrigin::kKubelet,
                            .sm_pct = 30.0,
                            .mps = true}};
  const core::GpuWorkloads gpu = core::attribute_gpu(mps, {});
  ASSERT_EQ(gpu.sharing, core::WorkloadSharing::kConcurrent);
  std::vector<core::WorkloadInterval> rows;
  for (const auto& share : gpu.workloads) {
    rows.push_back(
        {.device = 0, .t_start_ns = 0, .t_end_ns = std::nullopt, .sharing = gpu.sharing, .share = share});
  }
  ReportBuilder builder(std::span<const core::DeviceInfo>{});
  builder.set_workloads(rows);
  using testing::Load;
  builder.add(
      testing::sample(0, 0, 2000, Load{.bound = core::Bound::Compute, .compute = 70.0, .power_w = 200.0}));
  builder.add(
      testing::sample(0, 2000, 2000, Load{.bound = core::Bound::Idle, .compute = 10.0, .power_w = 100.0}));
  const Report report = builder.finish(TraceFacts{.workload_refresh = true});
  ASSERT_EQ(report.workloads.size(), 1u);
  const WorkloadReport& w = report.workloads[0];
  EXPECT_EQ(w.sharing, core::WorkloadSharing::kConcurrent);
  EXPECT_EQ(w.id, (core::WorkloadIdentity{.pod_namespace = "ml"}));
  EXPECT_EQ(workload_label(w.id), "namespace ml");
  EXPECT_DOUBLE_EQ(w.gpu_s, 4.0);
  EXPECT_DOUBLE_EQ(w.compute_sol_pct, 40.0);
  EXPECT_DOUBLE_EQ(w.energy_j, 600.0);
  EXPECT_DOUBLE_EQ(w.idle_s, 2.0);
}

}  // namespace
}  // namespace solscope::report
