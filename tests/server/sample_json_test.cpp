#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "server_test_support.hpp"
#include "wire/device_json.hpp"
#include "wire/sample_json.hpp"

namespace solscope::server {
namespace {

TEST(SampleJsonTest, sample_survives_a_round_trip) {
  core::SolSample s = testing::synthetic_sample(3, testing::kT0, 61.5);
  s.flags = core::kSampleGapBefore | core::kSamplePmPaused;
  s.pm_pause = core::PmPauseReason::kCountersBusy;
  s.metrics[core::index_of(core::MetricId::PowerW)] = 412.25;
  const nlohmann::json json = nlohmann::json::parse(wire::sol_sample_to_json(s, nullptr).dump());
  auto back = wire::sample_from_json(json);
  ASSERT_TRUE(back) << back.error().describe();
  EXPECT_EQ(back->device_index, 3U);
  EXPECT_EQ(back->t_start_ns, s.t_start_ns);
  EXPECT_EQ(back->t_end_ns, s.t_end_ns);
  EXPECT_EQ(back->flags, core::kSampleGapBefore | core::kSamplePmPaused);
  EXPECT_EQ(back->pm_pause, core::PmPauseReason::kCountersBusy);
  EXPECT_EQ(back->compute_pipe, core::Pipe::Tensor);
  EXPECT_EQ(back->memory_path, core::MemPath::Dram);
  EXPECT_EQ(back->bound, core::Bound::Compute);
  EXPECT_EQ(back->source, core::SourceKind::Replay);
  EXPECT_DOUBLE_EQ(back->compute_sol_pct, 61.5);
  EXPECT_DOUBLE_EQ(back->metric(core::MetricId::PowerW), 412.25);
  EXPECT_TRUE(std::isnan(back->metric(core::MetricId::TemperatureC)));
  EXPECT_TRUE(std::isnan(back->pipe_pct[static_cast<std::size_t>(core::Pipe::Fp64)]));
  EXPECT_EQ(back->attainable_limiter, core::Limiter::kCount);
}

// The attainable figures travel with their limiter and the gap in points (attainable - live, computed once
// by core::attainable_gap); the limiter reads back, the gap is derived again by any reader.
TEST(SampleJsonTest, attainable_limiter_and_gap_are_written_and_the_limiter_reads_back) {
  core::SolSample s = testing::synthetic_sample(0, testing::kT0, 28.75);
  s.attainable_compute_sol_pct = 41.0;
  s.attainable_memory_sol_pct = s.memory_sol_pct + 5.0;
  s.attainable_limiter = core::Limiter::Overhead;
  const nlohmann::json json = nlohmann::json::parse(wire::sol_sample_to_json(s, nullptr).dump());
  EXPECT_EQ(json.at("attainable_limiter"), "kernel_overhead");
  EXPECT_DOUBLE_EQ(json.at("attainable_compute_gap_pts").get<double>(), 12.25);
  EXPECT_DOUBLE_EQ(json.at("attainable_memory_gap_pts").get<double>(), 5.0);
  std::string text;
  wire::append_sol_sample_json(text, s, nullptr);
  EXPECT_EQ(text, wire::sol_sample_to_json(s, nullptr).dump()) << "the direct writer writes the same fields";
  auto back = wire::sample_from_json(json);
  ASSERT_TRUE(back) << back.error().describe();
  EXPECT_EQ(back->attainable_limiter, core::Limiter::Overhead);
  EXPECT_DOUBLE_EQ(back->attainable_compute_sol_pct, 41.0);
}

TEST(SampleJsonTest, malformed_samples_are_errors_not_exceptions) {
  for (const char* text : {"[]", "{}", R"({"device": "0", "t_start_ns": 1, "t_end_ns": 2})",
                           R"({"device": 0, "t_start_ns": 1.5, "t_end_ns": 2})"}) {
    auto s = wire::sample_from_json(nlohmann::json::parse(text));
    ASSERT_FALSE(s) << text;
    EXPECT_EQ(s.error().code, core::ErrorCode::InvalidArgument);
  }
  auto odd = wire::sample_from_json(nlohmann::json::parse(
      R"({"device": 0, "t_start_ns": 1, "t_end_ns": 2, "compute_pipe": "warp", "pipes": 3, "power_w": "hot"})"));
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->compute_pipe, core::Pipe::kCount);
  EXPECT_TRUE(std::isnan(odd->metric(core::MetricId::PowerW)));
}

TEST(SampleJsonTest, device_state_survives_a_round_trip) {
  core::DeviceState d = testing::synthetic_device(2);
  d.source_note = "why";
  d.lost = true;
  d.processes.push_back({.pid = 42,
                         .user = "alice",
                         .gpu_memory_bytes = 1 << 20,
                         .command = "python x.py",
                         .container_id = "abc"});
  const nlohmann::json json = nlohmann::json::parse(wire::device_state_to_json(d).dump());
  auto back = wire::device_state_from_json(json);
  ASSERT_TRUE(back) << back.error().describe();
  EXPECT_EQ(back->info.uuid, d.info.uuid);
  EXPECT_EQ(back->info.pci_bus_id, d.info.pci_bus_id);
  EXPECT_DOUBLE_EQ(back->info.dram_peak_bytes_per_s, 3.35e12);
  EXPECT_TRUE(std::isnan(back->info.max_sm_clock_mhz));
  EXPECT_EQ(back->source, core::SourceKind::Replay);
  EXPECT_TRUE(back->lost);
  ASSERT_EQ(back->processes.size(), 1U);
  EXPECT_EQ(back->processes[0].command, "python x.py");
  EXPECT_EQ(back->processes[0].gpu_memory_bytes, 1U << 20);
  EXPECT_FALSE(wire::device_state_from_json(nlohmann::json::parse(R"({"uuid": "x"})")));
}

// Issue 23: /api/v1/devices names a MIG instance and carries its identity, and the view attached to a daemon
// reads it back (a whole GPU: label "GPU N", gpu = index, the MIG fields empty or null).
TEST(SampleJsonTest, a_mig_instance_keeps_its_identity_over_json) {
  core::DeviceState d = testing::synthetic_device(3);
  d.info.uuid = "MIG-SYNTHETIC-3";
  d.info.parent_uuid = "GPU-SYNTHETIC-PARENT";
  d.info.gpu_index = 1;
  d.info.mig_profile = "3g.40gb";
  d.info.mig_instance_id = 2;
  d.info.mig_compute_instance_id = 0;
  d.info.mig_sm_share = 3.0 / 7.0;
  d.info.mig_memory_share = 0.5;
  const nlohmann::json json = nlohmann::json::parse(wire::device_state_to_json(d).dump());
  EXPECT_EQ(json.at("label"), "GPU 1 \u00b7 MIG 3g.40gb #2");
  EXPECT_EQ(json.at("gpu"), 1);
  EXPECT_EQ(json.at("index"), 3);
  auto back = wire::device_state_from_json(json);
  ASSERT_TRUE(back) << back.error().describe();
  EXPECT_EQ(core::device_label(back->info), "GPU 1 \u00b7 MIG 3g.40gb #2");
  EXPECT_EQ(back->info.parent_uuid, "GPU-SYNTHETIC-PARENT");
  EXPECT_EQ(back->info.mig_compute_instance_id, 0);
  EXPECT_DOUBLE_EQ(back->info.mig_sm_share, 3.0 / 7.0);
  EXPECT_DOUBLE_EQ(back->info.mig_memory_share, 0.5);

  const nlohmann::json whole =
      nlohmann::json::parse(wire::device_state_to_json(testing::synthetic_device(0)).dump());
  EXPECT_EQ(whole.at("label"), "GPU 0");
  EXPECT_EQ(whole.at("gpu"), 0);
  EXPECT_EQ(whole.at("parent_uuid"), "");
  EXPECT_TRUE(whole.at("mig_instance_id").is_null());
  EXPECT_TRUE(whole.at("mig_sm_share").is_null());
  auto whole_back = wire::device_state_from_json(whole);
  ASSERT_TRUE(whole_back);
  EXPECT_FALSE(whole_back->info.is_mig());
  EXPECT_EQ(whole_back->info.gpu_index, -1);
}

}  // namespace
}  // namespace solscope::server
