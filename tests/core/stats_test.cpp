// core/stats.hpp: the order statistics the straggler rule, the fleet, the report and the period search share.
#include "core/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "core/prometheus_names.hpp"

namespace solscope::core {
namespace {

TEST(StatsTest, median_of_known_values) {
  EXPECT_DOUBLE_EQ(median_known({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median_known({4, 1, kUnknown, 2, 3}), 2.5);
  EXPECT_TRUE(std::isnan(median_known({kUnknown})));
  EXPECT_TRUE(std::isnan(median_known({})));
}

// numpy.percentile([10, 20, 30, 40], [0, 50, 90, 100]) (linear, its default) = 10, 25, 37, 40.
TEST(StatsTest, percentile_interpolates_between_the_nearest_ranks_as_numpy_does) {
  const std::vector<std::int64_t> sorted{10, 20, 30, 40};
  const std::span<const std::int64_t> s(sorted);
  EXPECT_DOUBLE_EQ(percentile_sorted(s, 0.0), 10.0);
  EXPECT_DOUBLE_EQ(percentile_sorted(s, 50.0), 25.0);
  EXPECT_DOUBLE_EQ(percentile_sorted(s, 90.0), 37.0);
  EXPECT_DOUBLE_EQ(percentile_sorted(s, 100.0), 40.0);
  const std::vector<double> one{7.5};
  EXPECT_DOUBLE_EQ(percentile_sorted(std::span<const double>(one), 99.0), 7.5);
}

TEST(StatsTest, upper_median_is_one_of_the_values) {
  std::vector<int> odd{5, 1, 3};
  EXPECT_EQ(upper_median(odd), 3);
  std::vector<int> even{4, 1, 3, 2};
  EXPECT_EQ(upper_median(even), 3) << "the element at n/2 of the order, not the mean of the middle two";
}

TEST(PrometheusNamesTest, label_names_follow_the_data_model) {
  EXPECT_TRUE(is_prometheus_label_name("hpc_job"));
  EXPECT_TRUE(is_prometheus_label_name("_x9"));
  EXPECT_FALSE(is_prometheus_label_name(""));
  EXPECT_FALSE(is_prometheus_label_name("9x"));
  EXPECT_FALSE(is_prometheus_label_name("a:b")) << "a colon is for metric names only";
  EXPECT_FALSE(is_prometheus_label_name("a-b"));
  EXPECT_TRUE(is_prometheus_name_start(':', true));
  EXPECT_FALSE(is_prometheus_name_start(':', false));
}

}  // namespace
}  // namespace solscope::core
