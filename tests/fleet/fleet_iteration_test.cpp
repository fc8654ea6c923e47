// Issue 25: stragglers by iteration time across the GPUs of a multi-node job
// (fleet/detail/fleet_iteration.hpp), the PromQL of the iteration series and the --job-label check. SYNTHETIC
// figures: a 4-rank data-parallel job on two hosts, 125 ms per iteration on every rank (the others wait for
// the slowest in their all-reduce). The SMs work 80 % of it on three ranks (compute 100 ms) and 86.4 % on
// train-b GPU 1, whose compute (108 ms) is 8 % longer; every rank idles 5 % of it (data loading), so the
// exposed communication is 15 % and 8.6 %: the compute is iteration x compute ratio (core::rank_steps'
// rule), not iteration x (1 - exposed) (106.25 ms and 114.25 ms here).
#include "fleet/detail/fleet_iteration.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/iteration.hpp"
#include "fleet/detail/fleet_queries.hpp"

namespace solscope::fleet {
namespace {

constexpr double kTol = 1e-9;

auto rank(std::string host, std::string gpu, double compute_ratio, double exposed) -> FleetRow {
  FleetRow r;
  r.key.host = std::move(host);
  r.key.gpu = std::move(gpu);
  r.key.label = "GPU " + r.key.gpu;
  r.key.job = "ml/llm-" + r.key.host;  // one pod per host
  r.iteration_s = 0.125;
  r.compute_ratio = compute_ratio;
  r.exposed_communication_ratio = exposed;
  r.job_label_value = "llm-1";
  return r;
}

/// The job's 4 ranks (listed out of order) and a GPU that is not periodic.
auto job_rows() -> std::vector<FleetRow> {
  std::vector<FleetRow> rows{rank("train-b", "1", 0.864, 0.086), rank("train-a", "0", 0.8, 0.15),
                             rank("train-b", "0", 0.8, 0.15), rank("train-a", "1", 0.8, 0.15)};
  FleetRow idle;
  idle.key.host = "train-a";
  idle.key.gpu = "7";
  rows.push_back(idle);
  return rows;
}

TEST(FleetIteration, the_rank_with_8_percent_longer_compute_is_the_jobs_straggler) {
  std::vector<FleetRow> rows = job_rows();
  const auto groups = mark_iteration_stragglers(rows, "training_job");
  ASSERT_EQ(groups.size(), 1u);
  const IterationGroup& g = groups[0];
  EXPECT_EQ(g.group, "training_job=llm-1");
  ASSERT_EQ(g.gpus.size(), 4u);  // natural (host, GPU) order; the idle GPU is not compared
  EXPECT_EQ(g.gpus[0].host + "/" + g.gpus[0].gpu, "train-a/0");
  EXPECT_EQ(g.gpus[1].host + "/" + g.gpus[1].gpu, "train-a/1");
  EXPECT_EQ(g.gpus[2].host + "/" + g.gpus[2].gpu, "train-b/0");
  EXPECT_EQ(g.gpus[3].host + "/" + g.gpus[3].gpu, "train-b/1");
  EXPECT_EQ(g.straggler.host, "train-b");
  EXPECT_EQ(g.straggler.gpu, "1");
  EXPECT_NEAR(g.straggler_compute_s, 0.108, kTol);  // 125 ms x 0.864
  EXPECT_NEAR(g.median_compute_s, 0.100, kTol);     // 125 ms x 0.8
  EXPECT_NEAR(g.spread_pct, 8.0, kTol);             // (108 - 100) / 100 x 100
  EXPECT_NEAR(g.iteration_spread_pct, 0.0, kTol);   // every rank waits: one iteration time

  EXPECT_TRUE(rows[0].iteration_straggler);
  EXPECT_NEAR(rows[0].iteration_compute_s, 0.108, kTol);
  EXPECT_EQ(rows[0].iteration_group, "training_job=llm-1");
  for (std::size_t i = 1; i < 4; ++i) {
    EXPECT_FALSE(rows[i].iteration_straggler) << i;
    EXPECT_NEAR(rows[i].iteration_compute_s, 0.100, kTol) << i;
  }
  EXPECT_FALSE(rows[4].iteration_straggler);
  EXPECT_TRUE(std::isnan(rows[4].iteration_compute_s));
  EXPECT_EQ(rows[4].iteration_group, "");
}

// Without --job-label the groups are straggler_group()'s: here one pod per host, so two groups of two, and
// the straggler of train-b's is still GPU 1.
TEST(FleetIteration, without_a_job_label_the_groups_are_the_pods_else_the_hosts) {
  std::vector<FleetRow> rows = job_rows();
  auto groups = mark_iteration_stragglers(rows, "");
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].group, "job:ml/llm-train-a");
  EXPECT_EQ(groups[1].group, "job:ml/llm-train-b");
  EXPECT_EQ(groups[1].straggler.gpu, "1");
  EXPECT_NEAR(groups[1].spread_pct, (0.108 - 0.104) / 0.104 * 100, kTol);  // a median of two: their mean
  EXPECT_NEAR(groups[0].spread_pct, 0.0, kTol);                            // equal compute: no spread

  for (auto& r : rows) r.key.job.clear();  // no pod: by host, the same two groups
  groups = mark_iteration_stragglers(rows, "");
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].group, "host:train-a");
  EXPECT_EQ(groups[1].group, "host:train-b");
}

TEST(FleetIteration, a_gpu_without_the_job_label_or_alone_is_not_compared) {
  std::vector<FleetRow> rows = job_rows();
  rows[0].job_label_value.clear();  // train-b/1 lacks the label
  auto groups = mark_iteration_stragglers(rows, "training_job");
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].gpus.size(), 3u);
  EXPECT_EQ(rows[0].iteration_group, "");
  EXPECT_FALSE(rows[0].iteration_straggler);

  std::vector<FleetRow> one{rank("train-a", "0", 0.8, 0.15)};
  EXPECT_TRUE(mark_iteration_stragglers(one, "training_job").empty());
  EXPECT_FALSE(one[0].iteration_straggler);
  EXPECT_NEAR(one[0].iteration_compute_s, 0.1, kTol);

  std::vector<FleetRow> unknown_compute = job_rows();
  unknown_compute[0].compute_ratio = core::kUnknown;  // compute unknown: not compared
  groups = mark_iteration_stragglers(unknown_compute, "training_job");
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].gpus.size(), 3u);
  EXPECT_TRUE(std::isnan(unknown_compute[0].iteration_compute_s));
  EXPECT_EQ(groups[0].straggler.host + "/" + groups[0].straggler.gpu, "train-a/0");  // three equal: the first
  EXPECT_NEAR(groups[0].spread_pct, 0.0, kTol);

  std::vector<FleetRow> unknown_exposed = job_rows();
  unknown_exposed[0].exposed_communication_ratio = core::kUnknown;  // shown only: still compared
  groups = mark_iteration_stragglers(unknown_exposed, "training_job");
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].gpus.size(), 4u);
  EXPECT_EQ(groups[0].straggler.host + "/" + groups[0].straggler.gpu, "train-b/1");
  EXPECT_NEAR(groups[0].spread_pct, 8.0, kTol);
}

TEST(FleetIteration, job_label_must_be_a_prometheus_label_name) {
  for (const char* good : {"pod", "hpc_job", "training_job", "_x1", "Job"}) {
    EXPECT_TRUE(check_job_label(good).has_value()) << good;
  }
  for (const char* bad : {"", "1job", "my-job", "pod name", "job.id", "__name__", "__x"}) {
    const auto r = check_job_label(bad);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_EQ(r.error().code, core::ErrorCode::InvalidArgument);
    EXPECT_EQ(
        r.error().message.rfind("--job-label " + std::string(bad) + " is not a Prometheus label name", 0), 0u)
        << r.error().message;
  }
}

TEST(FleetIteration, the_iteration_query_keeps_the_job_label_once) {
  const std::string host =
      R"q(label_replace(label_replace(label_replace(solscope_iteration_seconds{cluster="a"}, "host", "$1", )q"
      R"q("instance", "(.+)"), "host", "$1", "hostname", "(.+)"), "host", "$1", "Hostname", "(.+)"))q";
  const std::string key = "host, gpu, GPU_I_PROFILE, GPU_I_ID, UUID, modelName, namespace, pod";
  EXPECT_EQ(iteration_expr(core::kPromIterationSecondsName, R"(cluster="a")", "", "training_job",
                           3'600'000'000'000, 15'000'000'000),
            "avg_over_time((max by (" + key + ", training_job) (" + host + "))[3600s:15s])");
  EXPECT_EQ(iteration_expr(core::kPromIterationSecondsName, R"(cluster="a")", "", "pod", 3'600'000'000'000,
                           15'000'000'000),
            "avg_over_time((max by (" + key + ") (" + host + "))[3600s:15s])");
  const std::string compute = iteration_expr(core::kPromIterationComputeName, "", R"(hostname=~"a|")", "",
                                             3'600'000'000'000, 15'000'000'000);
  EXPECT_NE(compute.find("max by (" + key + ") (label_replace(label_replace(label_replace(" +
                         R"q(solscope_iteration_compute_ratio{hostname=~"a|"}, )q"),
            std::string::npos)
      << compute;
}

}  // namespace
}  // namespace solscope::fleet
