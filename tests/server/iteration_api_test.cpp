// /api/v1/devices with training iterations (issue 25 items 3 and 4): each device's `iteration` object, and
// beside each roll-up entry that holds several GPUs its ranks compared (core::job_steps): each rank's
// iteration, the straggler and the spread. Before, the answer had neither.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/job_steps.hpp"
#include "core/workload.hpp"
#include "core/workload_rollup.hpp"
#include "server/detail/api.hpp"
#include "server_test_support.hpp"

namespace solscope::server {
namespace {

using Json = nlohmann::json;

auto pod(std::string name) -> core::WorkloadIdentity {
  return {.pod = std::move(name), .pod_namespace = "ml", .container = "trainer"};
}

/// GPUs 0-3: pod ml/train-0/trainer (a job of four ranks); GPU 4: pod ml/infer-0/trainer alone. GPU 0: a 0.5
/// s iteration, compute 0.25 s, communication 0.125 s of which 0.0625 s exposed; GPU 1: 0.5 s, compute 0.5 s,
/// communication 0.125 s all overlapped; GPU 2: 0.625 s, all compute (the straggler: 0.625 s against the
/// ranks' median 0.5 s, +25 %; iterations 0.5-0.625 s, 25 % of the median 0.5 s); GPU 3: not periodic.
class IterationApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<core::DeviceState> devices;
    for (std::uint32_t d = 0; d < 5; ++d) devices.push_back(testing::synthetic_device(d));
    state_.set_devices(std::move(devices));
    for (std::uint32_t d = 0; d < 5; ++d) {
      const std::vector<core::ProcessWorkload> p{{.pid = static_cast<std::int32_t>(100 + d),
                                                  .id = pod(d < 4 ? "train-0" : "infer-0"),
                                                  .origin = core::WorkloadOrigin::kKubelet}};
      state_.set_workloads(d, core::attribute_gpu(p, {}));
    }
    state_.set_iteration(0, testing::periodic_iteration(0.5, {0.375, 0.125, 0.25, 0.0, 0.25}, 0.25, 0.125));
    state_.set_iteration(1, testing::periodic_iteration(0.5, {0.75, 0.25, 0.0, 0.0, 0.0}, 0.25, 0.0));
    state_.set_iteration(2, testing::periodic_iteration(0.625, {1.0, 0.0, 0.0, 0.0, 0.0}, 0.25, 0.0));
    core::IterationEstimate none;
    none.confidence = 0.25;
    none.note = "no repeat found";
    state_.set_iteration(3, none);
    body_ = Json::parse(devices_json(state_, {.hostname = "node-17", .version = "0.1.0"}));
  }
  core::LiveState state_;
  Json body_;
};

TEST_F(IterationApiTest, each_device_carries_its_iteration) {
  const Json& it = body_["devices"][0]["iteration"];
  EXPECT_EQ(it["periodic"], true);
  EXPECT_EQ(it["period_s"], 0.5);
  EXPECT_EQ(it["jitter_s"], 0.00390625);
  EXPECT_EQ(it["confidence"], 0.875);
  EXPECT_EQ(it["window_s"], 30.0);
  EXPECT_EQ(it["estimated_at_ns"], 1'735'689'630'000'000'000);
  EXPECT_EQ(
      it["parts"],
      Json::parse(R"({"compute":0.375,"memory":0.125,"communication":0.25,"latency":0.0,"idle":0.25})"));
  EXPECT_EQ(it["communication_ratio"], 0.25);
  EXPECT_EQ(it["exposed_communication_ratio"], 0.125);
  EXPECT_EQ(it["communication_offset_s"], 0.0625);
  ASSERT_EQ(it["strip"].size(), core::kIterationStripBins);
  EXPECT_EQ(it["strip"][0], "compute");
  EXPECT_EQ(it["strip"][17], "compute");
  EXPECT_EQ(it["strip"][18], "memory");
  EXPECT_EQ(it["strip"][24], "communication");
  EXPECT_EQ(it["strip"][36], "idle");
  EXPECT_EQ(it["strip"][47], "idle");
  EXPECT_EQ(it["note"], "");
}

TEST_F(IterationApiTest, not_periodic_is_null_figures_and_an_empty_strip) {
  const Json& it = body_["devices"][3]["iteration"];
  EXPECT_EQ(it["periodic"], false);
  for (const char* key : {"period_s", "jitter_s", "communication_ratio", "exposed_communication_ratio",
                          "communication_offset_s"}) {
    EXPECT_TRUE(it[key].is_null()) << key;
  }
  for (const auto& [part, ratio] : it["parts"].items()) EXPECT_TRUE(ratio.is_null()) << part;
  EXPECT_EQ(it["confidence"], 0.25);
  EXPECT_EQ(it["strip"], Json::array());
  EXPECT_EQ(it["note"], "no repeat found");
  // A device the estimator has not looked at yet: not periodic, no figures, never 0.
  const Json& fresh = body_["devices"][4]["iteration"];
  EXPECT_EQ(fresh["periodic"], false);
  EXPECT_TRUE(fresh["confidence"].is_null());
  EXPECT_TRUE(fresh["period_s"].is_null());
}

TEST_F(IterationApiTest, a_job_compares_its_ranks_and_names_the_straggler) {
  ASSERT_EQ(body_["workloads"].size(), 2U);
  const Json& steps = body_["workloads"][0]["steps"];
  EXPECT_EQ(body_["workloads"][0]["display"], "ml/train-0/trainer");
  EXPECT_EQ(steps["ranks"], Json::parse(R"([
      {"device":0,"rank":"GPU 0","iteration_s":0.5,"compute_s":0.25,"communication_s":0.125,
       "exposed_communication_s":0.0625},
      {"device":1,"rank":"GPU 1","iteration_s":0.5,"compute_s":0.5,"communication_s":0.125,
       "exposed_communication_s":0.0},
      {"device":2,"rank":"GPU 2","iteration_s":0.625,"compute_s":0.625,"communication_s":0.15625,
       "exposed_communication_s":0.0}])"))
      << steps.dump(2);
  EXPECT_EQ(steps["not_periodic"], Json::parse("[3]"));
  EXPECT_EQ(steps["straggler"], Json::parse(R"({"device":2,"rank":"GPU 2"})"));
  EXPECT_EQ(steps["spread_pct"], 25.0);
  EXPECT_EQ(steps["iteration_spread_pct"], 25.0);
  // A workload on one GPU is no job: no comparison.
  EXPECT_TRUE(body_["workloads"][1]["steps"].is_null());
}

TEST_F(IterationApiTest, a_job_with_one_periodic_rank_has_no_straggler) {
  state_.set_iteration(1, core::IterationEstimate{});
  state_.set_iteration(2, core::IterationEstimate{});
  const Json body = Json::parse(devices_json(state_, {.hostname = "node-17", .version = "0.1.0"}));
  const Json& steps = body["workloads"][0]["steps"];
  EXPECT_EQ(steps["ranks"].size(), 1U);
  EXPECT_EQ(steps["not_periodic"], Json::parse("[1,2,3]"));
  EXPECT_TRUE(steps["straggler"].is_null());
  EXPECT_TRUE(steps["spread_pct"].is_null());
}

TEST(JobSteps, a_workload_on_fewer_than_two_gpus_is_no_job) {
  core::WorkloadRollup one{.id = pod("infer-0"), .gpus = {{.device = 0, .label = "GPU 0"}}};
  EXPECT_FALSE(core::job_steps(one, {}).has_value());
  one.gpus.push_back({.device = 7, .label = "GPU 7"});  // GPUs without a snapshot count as not periodic
  const auto job = core::job_steps(one, {});
  ASSERT_TRUE(job.has_value());
  EXPECT_TRUE(job->ranks.empty());
  EXPECT_EQ(job->not_periodic, (std::vector<std::uint32_t>{0, 7}));
  EXPECT_FALSE(job->verdict.has_value());
}

}  // namespace
}  // namespace solscope::server
