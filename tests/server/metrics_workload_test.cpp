// /metrics with workloads (issue 24): a GPU held by one workload carries dcgm-exporter's `pod`, `namespace`,
// `container` (and `hpc_job`) labels on every series, a shared GPU the fields its workloads agree on, and
// `solscope_workload_gpu_seconds_total` counts GPU-seconds per workload and bound class by the attribution
// rules of core/workload.hpp (time-sliced: split by SM share). Before, /metrics had no workload labels at
// all.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/workload.hpp"
#include "server/detail/metrics.hpp"
#include "server_test_support.hpp"

namespace solscope::server {
namespace {

using testing::lines_starting;

auto pod(std::string ns, std::string name, std::string container) -> core::WorkloadIdentity {
  return {.pod = std::move(name), .pod_namespace = std::move(ns), .container = std::move(container)};
}

auto process(std::int32_t pid, core::WorkloadIdentity id, std::optional<double> sm_pct, bool mps = false)
    -> core::ProcessWorkload {
  return {.pid = pid,
          .id = std::move(id),
          .origin = core::WorkloadOrigin::kKubelet,
          .sm_pct = sm_pct,
          .mps = mps};
}

/// Four 0.5 s samples of `device` from kT0: compute, compute, compute, idle (1.5 s compute, 0.5 s idle, both
/// exact in binary, as are their 0.75 / 0.25 splits).
void add_samples(core::LiveState& state, std::uint32_t device) {
  for (int i = 0; i < 4; ++i) {
    core::SolSample s = testing::synthetic_sample(device, testing::kT0 + std::int64_t{i} * 500'000'000, 40.0);
    s.t_end_ns = s.t_start_ns + 500'000'000;
    s.bound = i < 3 ? core::Bound::Compute : core::Bound::Idle;
    state.add(s);
  }
}

/// GPU 0: one pod (exclusive); GPU 1: two pods of namespace ml time-sliced at SM 30 % and 10 %; GPU 2: two
/// MPS clients of namespace batch (concurrent); GPU 3: no workload; GPU 4: Slurm job 4242 (exclusive).
class MetricsWorkloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<core::DeviceState> devices;
    for (std::uint32_t d = 0; d < 5; ++d) devices.push_back(testing::synthetic_device(d));
    state_.set_devices(std::move(devices));
    const std::vector<core::WorkloadAllocation> none;
    const std::vector<core::ProcessWorkload> exclusive{process(100, pod("ml", "train-0", "trainer"), 80.0)};
    const std::vector<core::ProcessWorkload> sliced{process(200, pod("ml", "infer-a", "server"), 30.0),
                                                    process(201, pod("ml", "infer-b", "server"), 10.0)};
    const std::vector<core::ProcessWorkload> mps{
        process(300, pod("batch", "etl-1", "reader"), std::nullopt, true),
        process(301, pod("batch", "etl-2", "writer"), std::nullopt, true)};
    const std::vector<core::ProcessWorkload> job{
        {.pid = 400, .id = {.hpc_job = "4242", .user = "alice"}, .origin = core::WorkloadOrigin::kSlurm}};
    state_.set_workloads(0, core::attribute_gpu(exclusive, none));
    state_.set_workloads(1, core::attribute_gpu(sliced, none));
    state_.set_workloads(2, core::attribute_gpu(mps, none));
    state_.set_workloads(4, core::attribute_gpu(job, none));
    for (std::uint32_t d = 0; d < 5; ++d) add_samples(state_, d);
    text_ = render_metrics(state_, {.hostname = "node-17", .version = "0.1.0"});
  }
  static auto gpu(int index) -> std::string {
    return "gpu=\"" + std::to_string(index) + "\",UUID=\"GPU-SYNTHETIC-" + std::to_string(index) +
           "\",modelName=\"SYNTHETIC test GPU\",hostname=\"node-17\"";
  }
  core::LiveState state_;
  std::string text_;
};

TEST_F(MetricsWorkloadTest, gpu_series_carry_the_workload_labels_dcgm_exporter_uses) {
  EXPECT_EQ(lines_starting(text_, "solscope_compute_sol_ratio{"),
            (std::vector<std::string>{
                "solscope_compute_sol_ratio{" + gpu(0) +
                    ",pod=\"train-0\",namespace=\"ml\",container=\"trainer\",pipe=\"tensor\"} 0.4",
                "solscope_compute_sol_ratio{" + gpu(1) +
                    ",namespace=\"ml\",container=\"server\",pipe=\"tensor\"} 0.4",
                "solscope_compute_sol_ratio{" + gpu(2) + ",namespace=\"batch\",pipe=\"tensor\"} 0.4",
                "solscope_compute_sol_ratio{" + gpu(3) + ",pipe=\"tensor\"} 0.4",
                "solscope_compute_sol_ratio{" + gpu(4) + ",hpc_job=\"4242\",pipe=\"tensor\"} 0.4"}))
      << text_;
  // Every per-GPU series, counters and info included.
  EXPECT_EQ(lines_starting(text_, "solscope_sampled_seconds_total{")[0],
            "solscope_sampled_seconds_total{" + gpu(0) +
                ",pod=\"train-0\",namespace=\"ml\",container=\"trainer\"} 2");
  EXPECT_EQ(lines_starting(text_, "solscope_gpu_info{" + gpu(4) + ",hpc_job=\"4242\",chip=").size(), 1U);
  // No PIDs and no user names as labels (bounded cardinality; user is not a dcgm-exporter label).
  EXPECT_EQ(text_.find("pid="), std::string::npos);
  EXPECT_EQ(text_.find("user="), std::string::npos);
  EXPECT_EQ(text_.find("alice"), std::string::npos);
}

TEST_F(MetricsWorkloadTest, the_sharing_gauge_counts_workloads) {
  EXPECT_EQ(lines_starting(text_, "solscope_gpu_workloads{"),
            (std::vector<std::string>{
                "solscope_gpu_workloads{" + gpu(0) +
                    ",pod=\"train-0\",namespace=\"ml\",container=\"trainer\",sharing=\"exclusive\"} 1",
                "solscope_gpu_workloads{" + gpu(1) +
                    ",namespace=\"ml\",container=\"server\",sharing=\"time_sliced\"} 2",
                "solscope_gpu_workloads{" + gpu(2) + ",namespace=\"batch\",sharing=\"concurrent\"} 2",
                "solscope_gpu_workloads{" + gpu(3) + ",sharing=\"none\"} 0",
                "solscope_gpu_workloads{" + gpu(4) + ",hpc_job=\"4242\",sharing=\"exclusive\"} 1"}))
      << text_;
  EXPECT_NE(text_.find("# TYPE solscope_gpu_workloads gauge"), std::string::npos);
}

TEST_F(MetricsWorkloadTest, gpu_seconds_per_workload_and_bound_follow_the_attribution_rules) {
  // One series per workload and bound class (unknown, idle, compute, memory, latency), from 0. Exclusive: the
  // GPU's 1.5 s compute and 0.5 s idle; time-sliced: x 0.75 and x 0.25 (SM 30 % and 10 %); concurrent: the
  // GPU's seconds once, under the namespace both share; no workload: no series.
  const auto series = [&](const std::string& labels, const std::string& idle, const std::string& compute) {
    const std::string head = "solscope_workload_gpu_seconds_total{" + labels + ",bound=\"";
    return std::vector<std::string>{head + "unknown\"} 0", head + "idle\"} " + idle,
                                    head + "compute\"} " + compute, head + "memory\"} 0",
                                    head + "latency\"} 0"};
  };
  std::vector<std::string> want;
  for (const auto& part :
       {series(gpu(0) + ",pod=\"train-0\",namespace=\"ml\",container=\"trainer\",sharing=\"exclusive\"",
               "0.5", "1.5"),
        series(gpu(1) + ",pod=\"infer-a\",namespace=\"ml\",container=\"server\",sharing=\"time_sliced\"",
               "0.375", "1.125"),
        series(gpu(1) + ",pod=\"infer-b\",namespace=\"ml\",container=\"server\",sharing=\"time_sliced\"",
               "0.125", "0.375"),
        series(gpu(2) + ",namespace=\"batch\",sharing=\"concurrent\"", "0.5", "1.5"),
        series(gpu(4) + ",hpc_job=\"4242\",sharing=\"exclusive\"", "0.5", "1.5")}) {
    want.insert(want.end(), part.begin(), part.end());
  }
  EXPECT_EQ(lines_starting(text_, "solscope_workload_gpu_seconds_total{"), want) << text_;
  EXPECT_NE(text_.find("# TYPE solscope_workload_gpu_seconds_total counter"), std::string::npos);
  // Nothing dropped; the counter exists for every GPU from 0, without workload labels.
  const auto dropped = lines_starting(text_, "solscope_workload_dropped_gpu_seconds_total{");
  ASSERT_EQ(dropped.size(), 5U) << text_;
  EXPECT_EQ(dropped[1], "solscope_workload_dropped_gpu_seconds_total{" + gpu(1) + "} 0");
}

// Beyond core::kMaxWorkloadSeriesPerGpu workload series on one GPU, further workloads' seconds go to the
// dropped counter, so that thousands of short jobs cannot grow /metrics without bound.
TEST(MetricsWorkloadLimitTest, seconds_beyond_the_series_limit_are_counted_as_dropped) {
  core::LiveState state;
  state.set_devices({testing::synthetic_device(0)});
  const std::size_t jobs = core::kMaxWorkloadSeriesPerGpu + 3;
  for (std::size_t j = 0; j < jobs; ++j) {
    const std::vector<core::ProcessWorkload> one{{.pid = 1000 + static_cast<std::int32_t>(j),
                                                  .id = {.hpc_job = std::to_string(5000 + j)},
                                                  .origin = core::WorkloadOrigin::kSlurm}};
    state.set_workloads(0, core::attribute_gpu(one, {}));
    core::SolSample s =
        testing::synthetic_sample(0, testing::kT0 + static_cast<std::int64_t>(j) * 500'000'000, 40.0);
    s.t_end_ns = s.t_start_ns + 500'000'000;
    state.add(s);
  }
  const std::string text = render_metrics(state, {.hostname = "node-17", .version = "0.1.0"});
  EXPECT_EQ(lines_starting(text, "solscope_workload_gpu_seconds_total{").size(),
            core::kMaxWorkloadSeriesPerGpu * core::kBoundCount);
  // Jobs 5000..5031 have series; 5032, 5033 and 5034 (0.5 s each) were dropped.
  EXPECT_EQ(lines_starting(text,
                           "solscope_workload_gpu_seconds_total{gpu=\"0\",UUID=\"GPU-SYNTHETIC-0\","
                           "modelName=\"SYNTHETIC test GPU\",hostname=\"node-17\",hpc_job=\"5032\"")
                .size(),
            0U);
  EXPECT_EQ(lines_starting(text, "solscope_workload_dropped_gpu_seconds_total{"),
            (std::vector<std::string>{
                "solscope_workload_dropped_gpu_seconds_total{gpu=\"0\",UUID=\"GPU-SYNTHETIC-0\","
                "modelName=\"SYNTHETIC test GPU\",hostname=\"node-17\"} 1.5"}));
}

}  // namespace
}  // namespace solscope::server
