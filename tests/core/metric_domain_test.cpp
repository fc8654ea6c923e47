// The one domain check of a metric's value (core/metric_domain.hpp) against the ranges of the metric catalog
// (MetricDef::valid): out-of-range values, NaN and +-Inf are never measurements; unknown stays uncounted.
#include "core/metric_domain.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/dcgm_fields.hpp"
#include "core/metric_catalog.hpp"
#include "core/units.hpp"

namespace solscope::core {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(MetricDomain, every_metric_states_a_finite_range_by_its_unit) {
  for (const MetricDef& def : metric_catalog()) {
    EXPECT_TRUE(std::isfinite(def.valid.min) && std::isfinite(def.valid.max)) << def.name;
    EXPECT_LT(def.valid.min, def.valid.max) << def.name;
    EXPECT_LE(def.valid.min, 0.0) << def.name;  // 0 is a measurement of every metric
    if (def.unit == Unit::Percent) {
      EXPECT_EQ(def.valid.min, kPercentRange.min) << def.name;
      EXPECT_EQ(def.valid.max, kPercentRange.max) << def.name;
    }
  }
  // 0-100 % with the stated tolerance: 1 point below 0, up to 200 % above (counter skew).
  EXPECT_DOUBLE_EQ(kPercentRange.min, -1.0);
  EXPECT_DOUBLE_EQ(kPercentRange.max, 200.0);
}

TEST(MetricDomain, percentages_within_the_tolerance_are_measurements) {
  for (const double v : {0.0, 0.5, 100.0, 101.4, 157.4, 200.0, -0.5, -1.0}) {
    EXPECT_TRUE(in_domain(MetricId::TensorPipe, v)) << v;
  }
  for (const double v : {-100.0, -1.01, 200.01, 1e6, kInf, -kInf, std::nan("")}) {
    EXPECT_FALSE(in_domain(MetricId::TensorPipe, v)) << v;
  }
  EXPECT_TRUE(in_domain(MetricId::PowerW, 700.0));
  EXPECT_FALSE(in_domain(MetricId::PowerW, -3.0));
  EXPECT_TRUE(in_domain(MetricId::TemperatureC, -10.0));
  EXPECT_FALSE(in_domain(MetricId::MemoryUsedBytes, -1.0));
  EXPECT_TRUE(in_domain(MetricId::MemoryTotalBytes, 80.0 * kGibi));
}

TEST(MetricDomain, out_of_domain_values_become_unknown_and_are_counted_never_zero_or_clamped) {
  DomainTally tally;
  EXPECT_DOUBLE_EQ(domain_checked(MetricId::TensorPipe, 42.0, tally), 42.0);
  EXPECT_TRUE(std::isnan(domain_checked(MetricId::TensorPipe, std::nan(""), tally)));  // unknown already
  EXPECT_EQ(tally.total(), 0u);
  EXPECT_TRUE(std::isnan(domain_checked(MetricId::TensorPipe, -kInf, tally)));
  EXPECT_TRUE(std::isnan(domain_checked(MetricId::FmaPipe, -100.0, tally)));  // a DCGM ratio of -1
  EXPECT_TRUE(std::isnan(domain_checked(MetricId::TensorPipe, kInf, tally)));
  EXPECT_EQ(tally.count(MetricId::TensorPipe), 2u);
  EXPECT_EQ(tally.count(MetricId::FmaPipe), 1u);
  EXPECT_EQ(tally.total(), 3u);
  EXPECT_EQ(tally.describe(), "tensor_pipe_pct 2, fma_pipe_pct 1");

  RawSample s;
  s.set(MetricId::TensorPipe, 55.0);
  s.set(MetricId::DramThroughput, -kInf);
  s.set(MetricId::PowerW, -5.0);
  DomainTally sample_tally;
  EXPECT_EQ(check_domain(s, sample_tally), 2u);
  EXPECT_DOUBLE_EQ(s.value(MetricId::TensorPipe), 55.0);
  EXPECT_TRUE(std::isnan(s.value(MetricId::DramThroughput)));
  EXPECT_TRUE(std::isnan(s.value(MetricId::PowerW)));
  EXPECT_TRUE(std::isnan(s.value(MetricId::L2Throughput)));
  tally += sample_tally;
  EXPECT_EQ(tally.total(), 5u);
  EXPECT_EQ(DomainTally{}.describe(), "");
}

TEST(MetricDomain, a_dcgm_infinity_is_no_placeholder_but_a_value_the_check_counts) {
  // Before: +Inf counted as DCGM's INT64 blank (silently unknown) and -Inf passed as a value (-inf %).
  const DcgmField tensor = *dcgm_field_by_id(1004);
  for (const double v : {kInf, -kInf}) {
    EXPECT_FALSE(is_dcgm_placeholder(v)) << v;
    DomainTally tally;
    EXPECT_TRUE(std::isnan(domain_checked(tensor.metric, dcgm_value(tensor, v), tally))) << v;
    EXPECT_EQ(tally.count(MetricId::TensorPipe), 1u) << v;
  }
  EXPECT_TRUE(is_dcgm_placeholder(9223372036854775794.0));  // the INT64 family is still a placeholder
}

}  // namespace
}  // namespace solscope::core
