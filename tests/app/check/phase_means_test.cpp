// The phase mean of `solscope check`: duration-weighted, ramp edges left out, unknowns skipped.
#include "check/run/detail/phase_means.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace solscope::app {
namespace {

constexpr std::int64_t kMs = 1'000'000;

auto sample(std::uint32_t device, std::int64_t start_ms, std::int64_t end_ms, double fma) -> core::RawSample {
  core::RawSample s;
  s.device_index = device;
  s.t_start_ns = start_ms * kMs;
  s.t_end_ns = end_ms * kMs;
  s.set(core::MetricId::FmaPipe, fma);
  return s;
}

TEST(PhaseMeansTest, the_ramp_edges_are_left_out_and_the_mean_is_duration_weighted) {
  const std::vector<core::RawSample> samples{
      sample(0, 1000, 1100, 500.0),           // inside the first 100 ms: left out
      sample(0, 1100, 1110, 40.0),            // 10 ms at 40
      sample(0, 1110, 1140, 80.0),            // 30 ms at 80
      sample(0, 1140, 1150, core::kUnknown),  // unknown: left out
      sample(1, 1110, 1140, 0.0),             // another GPU
      sample(0, 1850, 1910, 70.0),            // crosses the end edge (1900): left out
      sample(0, 1900, 2000, -300.0),          // inside the last 100 ms: left out
  };
  const PhaseWindow window{.device = 0, .wall_start_ns = 1000 * kMs, .wall_end_ns = 2000 * kMs};
  const PhaseMean mean = phase_mean(samples, window, core::MetricId::FmaPipe);
  EXPECT_EQ(mean.samples, 2u);
  EXPECT_DOUBLE_EQ(mean.value, (40.0 * 10 + 80.0 * 30) / 40.0);  // 70
  EXPECT_EQ(kRampEdgeNs, 100 * kMs);
}

TEST(PhaseMeansTest, no_edge_counts_every_sample_inside) {
  const std::vector<core::RawSample> samples{sample(0, 0, 10, 10.0), sample(0, 10, 20, 30.0)};
  const PhaseMean mean = phase_mean(samples, {.device = 0, .wall_start_ns = 0, .wall_end_ns = 20 * kMs},
                                    core::MetricId::FmaPipe, 0);
  EXPECT_EQ(mean.samples, 2u);
  EXPECT_DOUBLE_EQ(mean.value, 20.0);
}

TEST(PhaseMeansTest, a_window_shorter_than_two_edges_has_no_sample) {
  const std::vector<core::RawSample> samples{sample(0, 50, 60, 10.0)};
  const PhaseMean mean = phase_mean(samples, {.device = 0, .wall_start_ns = 0, .wall_end_ns = 150 * kMs},
                                    core::MetricId::FmaPipe);
  EXPECT_EQ(mean.samples, 0u);
  EXPECT_TRUE(std::isnan(mean.value));
}

TEST(PhaseMeansTest, a_source_measures_a_metric_when_any_sample_of_the_device_has_it) {
  const std::vector<core::RawSample> samples{sample(0, 0, 10, core::kUnknown), sample(1, 0, 10, 5.0)};
  EXPECT_FALSE(source_measures(samples, 0, core::MetricId::FmaPipe));
  EXPECT_TRUE(source_measures(samples, 1, core::MetricId::FmaPipe));
  EXPECT_FALSE(source_measures(samples, 1, core::MetricId::AluPipe));
}

}  // namespace
}  // namespace solscope::app
