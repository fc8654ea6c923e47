// The HTML report's series (report_series.hpp): bounded buckets of duration-weighted means, breaks where the
// samples stop, and the JSON the page reads. Exact expected figures.
#include "report/report_series.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "report/report_builder.hpp"
#include "report/report_json.hpp"
#include "report_test_support.hpp"

namespace solscope::report {
namespace {

constexpr std::int64_t kS = core::kNsPerS;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

auto point(std::int64_t start_ns, std::int64_t end_ns, float compute, float memory = 0.0F, float util = 0.0F)
    -> PhasePoint {
  return PhasePoint{.t_start_ns = start_ns,
                    .t_end_ns = end_ns,
                    .compute_sol_pct = compute,
                    .memory_sol_pct = memory,
                    .gpu_util_pct = util};
}

TEST(ReportSeries, BucketsHoldDurationWeightedMeans) {
  std::vector<PhasePoint> points;
  for (int i = 0; i < 10; ++i)
    points.push_back(point(i * kS, (i + 1) * kS, 10.0F * static_cast<float>(i + 1)));
  const Series s = downsample_series(points, 5);  // 10 s in 5 buckets of 2 s
  ASSERT_EQ(s.t_ns.size(), 5U);
  EXPECT_EQ(s.t_ns, (std::vector<std::int64_t>{0, 2 * kS, 4 * kS, 6 * kS, 8 * kS}));
  EXPECT_EQ(s.compute_sol_pct, (std::vector<float>{15.0F, 35.0F, 55.0F, 75.0F, 95.0F}));
  ASSERT_EQ(s.memory_sol_pct.size(), 5U);
  ASSERT_EQ(s.gpu_util_pct.size(), 5U);

  // 1 s at 0 % and 3 s at 100 % in one bucket: 75 %.
  const std::vector<PhasePoint> uneven{point(0, kS, 0.0F, 20.0F), point(kS, 4 * kS, 100.0F, kNaN)};
  const Series u = downsample_series(uneven, 1);
  ASSERT_EQ(u.t_ns.size(), 1U);
  EXPECT_FLOAT_EQ(u.compute_sol_pct[0], 75.0F);
  EXPECT_FLOAT_EQ(u.memory_sol_pct[0], 20.0F);  // the unknown value is skipped, not read as 0
}

TEST(ReportSeries, UnknownStaysUnknownAndGapsBreakTheLine) {
  const std::vector<PhasePoint> points{point(0, kS, kNaN, 5.0F), point(kS, 2 * kS, 30.0F, 6.0F),
                                       point(10 * kS, 11 * kS, 40.0F, 7.0F)};
  const Series s = downsample_series(points, 11);  // buckets of 1 s
  ASSERT_EQ(s.t_ns.size(), 4U);
  EXPECT_EQ(s.t_ns, (std::vector<std::int64_t>{0, kS, 2 * kS, 10 * kS}));
  EXPECT_TRUE(std::isnan(s.compute_sol_pct[0]));
  EXPECT_FLOAT_EQ(s.compute_sol_pct[1], 30.0F);
  EXPECT_TRUE(std::isnan(s.compute_sol_pct[2]));  // the break at the end of the last sample before the gap
  EXPECT_TRUE(std::isnan(s.memory_sol_pct[2]));
  EXPECT_FLOAT_EQ(s.compute_sol_pct[3], 40.0F);

  const auto json = series_json(s);
  EXPECT_EQ(json.dump(),
            R"({"t_ns":[0,1000000000,2000000000,10000000000],"compute_sol_pct":[null,30.0,null,40.0],)"
            R"("memory_sol_pct":[5.0,6.0,null,7.0],"gpu_util_pct":[0.0,0.0,null,0.0]})");
}

TEST(ReportSeries, AnHourAt10msIsAThousandPoints) {
  std::vector<PhasePoint> points;
  constexpr std::int64_t kTenMs = 10 * core::kNsPerMs;
  points.reserve(360000);
  for (std::int64_t i = 0; i < 360000; ++i) points.push_back(point(i * kTenMs, (i + 1) * kTenMs, 50.0F));
  const Series s = downsample_series(points);
  EXPECT_EQ(s.t_ns.size(), kSeriesBuckets);
  EXPECT_EQ(s.t_ns[1], 360 * kTenMs);  // 3.6 s buckets
  EXPECT_FLOAT_EQ(s.compute_sol_pct.back(), 50.0F);
  // Samples slower than the buckets: one point per sample.
  const std::vector<PhasePoint> three{point(0, kS, 1.0F), point(kS, 2 * kS, 2.0F),
                                      point(2 * kS, 3 * kS, 3.0F)};
  EXPECT_EQ(downsample_series(three).t_ns.size(), 3U);
  EXPECT_TRUE(downsample_series({}).t_ns.empty());
  EXPECT_TRUE(downsample_series(three, 0).t_ns.empty());
}

TEST(ReportSeries, TheHtmlJsonAddsASeriesPerGpuAndJsonKeepsNone) {
  using testing::Load;
  ReportBuilder builder({}, {});
  for (int i = 0; i < 4; ++i) {
    builder.add(testing::sample(0, i * 100, 100, Load{.bound = core::Bound::Compute, .compute = 80.0}));
    builder.add(testing::sample(2, i * 100, 100, Load{.bound = core::Bound::Memory, .memory = 60.0}));
  }
  const Report report = builder.finish(TraceFacts{.path = "t.sqlite"});
  ASSERT_EQ(report.gpus.size(), 2U);
  EXPECT_EQ(report.gpus[1].series.t_ns.size(), 4U);
  const auto html = to_json_with_series(report);
  ASSERT_EQ(html["gpus"].size(), 2U);
  EXPECT_EQ(html["gpus"][0]["series"]["t_ns"].size(), 4U);
  EXPECT_EQ(html["gpus"][0]["series"]["compute_sol_pct"][3], 80.0);
  EXPECT_EQ(html["gpus"][1]["series"]["memory_sol_pct"][0], 60.0);
  EXPECT_FALSE(to_json(report)["gpus"][0].contains("series"));
  auto without = html;
  for (auto& gpu : without["gpus"]) gpu.erase("series");
  EXPECT_EQ(without, to_json(report));
}

}  // namespace
}  // namespace solscope::report
