// The one SYNTHETIC trace generator's profiles (tests/data/synthetic/profiles.hpp) write what they promise:
// the integration tests and benchmarks take their expected figures from these traces.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/metric_id.hpp"
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

}  // namespace
}  // namespace solscope::synthetic
