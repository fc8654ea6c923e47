// The one SYNTHETIC trace generator's profiles (tests/data/synthetic/profiles.hpp) write what they promise:
// the integration tests and benchmarks take their expected figures from these traces.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/kernel_steps.hpp"
#include "core/metric_id.hpp"
#include "data/synthetic/dp_step.hpp"
#include "data/synthetic/dp_step_trace.hpp"
#include "data/synthetic/profiles.hpp"
#include "trace/reader.hpp"
#include "trace/trace_test_support.hpp"

namespace solscope::synthetic {
namespace {

TEST(SyntheticProfilesTest, constant_profile_holds_one_load_per_gpu_and_the_attainable_gpu) {
  trace::testing::TempDir dir;
  const auto path = dir.file("constant.sqlite");
  auto written = write_profile_trace(
      path, {.profile = Profile::Constant, .devices = 3, .hz = 10, .seconds = 2.0, .attainable_device = 1});
  ASSERT_TRUE(written) << written.error().describe();
  EXPECT_EQ(*written, 60U);
  auto reader = trace::Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_TRUE(reader->metadata().synthetic);
  const auto back = trace::testing::read_all(*reader);
  ASSERT_EQ(back.samples.size(), 60U);
  for (const core::RawSample& s : back.samples) {
    const double g = s.device_index;
    EXPECT_DOUBLE_EQ(s.value(core::MetricId::TensorPipe), 20.0 + 15.0 * g);
    EXPECT_DOUBLE_EQ(s.value(core::MetricId::DramThroughput), 10.0 + 7.0 * g);
    EXPECT_EQ(s.t_end_ns - s.t_start_ns, 100'000'000);
    if (s.device_index == 1) {
      EXPECT_DOUBLE_EQ(s.attainable_compute_sol_pct, 55.0);
    } else {
      EXPECT_TRUE(std::isnan(s.attainable_compute_sol_pct));
    }
  }
}

TEST(SyntheticProfilesTest, bad_sizes_and_names_are_refused) {
  trace::testing::TempDir dir;
  for (const ProfileOptions& bad :
       {ProfileOptions{.devices = 0}, ProfileOptions{.hz = 0}, ProfileOptions{.seconds = -1.0},
        ProfileOptions{.seconds = std::numeric_limits<double>::quiet_NaN()}}) {
    auto written = write_profile_trace(dir.file("bad.sqlite"), bad);
    ASSERT_FALSE(written);
    EXPECT_EQ(written.error().code, core::ErrorCode::InvalidArgument);
  }
  EXPECT_EQ(parse_profile("demo"), Profile::Demo);
  EXPECT_FALSE(parse_profile("nope"));
}

TEST(SyntheticProfilesTest, dp_step_trace_holds_the_scenario_and_gives_its_figures_back) {
  trace::testing::TempDir dir;
  const auto path = dir.file("dp_step.sqlite");
  auto written = write_dp_step_trace(path, false);
  ASSERT_TRUE(written) << written.error().describe();
  EXPECT_EQ(*written, 240U);  // 4 GPUs x 60 samples of 10 ms
  auto reader = trace::Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_TRUE(reader->metadata().synthetic);
  EXPECT_EQ(reader->metadata().kernel_log, "synthetic");
  auto kernels = reader->kernels();
  ASSERT_TRUE(kernels) << kernels.error().describe();
  ASSERT_EQ(kernels->kernels.size(), 144U);  // 4 ranks x 6 steps x 6 kernels
  auto markers = reader->markers();
  ASSERT_TRUE(markers) << markers.error().describe();
  ASSERT_TRUE(markers->present);
  ASSERT_EQ(markers->rows.size(), 72U);  // 4 ranks x 6 steps x (train_step, forward, optimizer)
  // Through the file, rank 0's iterations are the scenario's (tests/data/synthetic/dp_step_scenario.md).
  const core::KernelSteps steps = core::kernel_steps(0, kernels->kernels, markers->rows);
  EXPECT_EQ(steps.boundary, core::StepBoundary::Nvtx);
  ASSERT_EQ(steps.iterations.size(), 5U);
  EXPECT_EQ(steps.iterations[0].start_ns, kDpStepStartNs);
  EXPECT_EQ(steps.iterations[0].compute_ns, 76'125'000);
  EXPECT_EQ(steps.iterations[0].exposed_communication_ns, 14'275'000);
  // The samples follow the kernels: rank 2 over [30, 40) ms runs its forward until 36.4 ms, then its
  // backward (all compute); rank 0 over [70, 80) ms its second backward until 70.125 ms, then only the
  // exposed bucket.
  const auto back = trace::testing::read_all(*reader);
  ASSERT_EQ(back.samples.size(), 240U);
  for (const core::RawSample& s : back.samples) {
    if (s.device_index == 2 && s.t_start_ns == kDpStepStartNs + 30'000'000) {
      EXPECT_DOUBLE_EQ(s.value(core::MetricId::SmActive), 90.0);
      EXPECT_DOUBLE_EQ(s.value(core::MetricId::NvlinkRxBytesPerS), 0.0);
    }
    if (s.device_index == 0 && s.t_start_ns == kDpStepStartNs + 70'000'000) {
      EXPECT_DOUBLE_EQ(s.value(core::MetricId::SmActive), 90.0 * 0.0125);
      EXPECT_DOUBLE_EQ(s.value(core::MetricId::NvlinkRxBytesPerS), 100e9 * 0.9875);
    }
  }
}

}  // namespace
}  // namespace solscope::synthetic
