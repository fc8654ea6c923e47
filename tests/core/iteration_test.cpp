// Training iterations from samples alone (core/iteration.hpp, docs/design/sol-metrics.md section 12): the
// period within 2% on SYNTHETIC schedules with jitter, drift, noise and missing samples; "not periodic" on
// serving, constant and too short series; the parts, the strip and the communication offset of a clean
// iteration; the tracker's cadence and bounded window.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/iteration.hpp"
#include "data/synthetic/iteration_load.hpp"

namespace solscope::core {
namespace {

using synthetic::ServingShape;
using synthetic::TrainingShape;

constexpr std::int64_t kT0Ns = 1'767'225'600'000'000'000;  // 2026-01-01T00:00:00Z
constexpr double kComputeActivityPct = 98.0;
constexpr double kCommActivityPct = 12.0;
constexpr double kLinkBusyBytesPerS = 150e9;
constexpr double kLinkBackgroundBytesPerS = 2e7;

struct Sampling {
  double interval_s = 0.01;
  double noise_pct = 0.0;   ///< std dev of additive noise on the activity, percentage points
  double drop_share = 0.0;  ///< share of samples missing at random
  double from_s = 0.0;      ///< the first sample starts here (seconds from kT0Ns)
  std::uint64_t seed = 3;
};

auto to_ns(double s) -> std::int64_t {
  return kT0Ns + std::llround(s * 1e9);
}

/// Box-averaged samples of a training schedule; `overlap_share` of each iteration before the communication
/// also moves bytes (overlapped with compute-bound samples).
auto training_points(const TrainingShape& shape, const Sampling& s, double overlap_share = 0.0)
    -> std::vector<IterationPoint> {
  const auto starts = synthetic::training_starts(shape);
  std::mt19937_64 rng(s.seed);
  std::normal_distribution<double> noise(0.0, 1.0);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  TrainingShape early = shape;  // the compute that overlaps communication
  early.compute_share = shape.compute_share - overlap_share;
  early.communication_share = overlap_share;
  std::vector<IterationPoint> out;
  const auto count = std::llround((shape.seconds - s.from_s) / s.interval_s);
  for (std::int64_t k = 0; k < count; ++k) {
    const double a = s.from_s + static_cast<double>(k) * s.interval_s;
    const auto p = synthetic::training_shares(shape, starts, a, a + s.interval_s);
    const double overlapped = synthetic::training_shares(early, starts, a, a + s.interval_s).communication;
    const double n = noise(rng);
    if (coin(rng) < s.drop_share) continue;
    Bound bound = Bound::Idle;
    if (p.compute >= std::max(p.communication, p.idle)) {
      bound = Bound::Compute;
    } else if (p.communication >= p.idle) {
      bound = Bound::Latency;
    }
    out.push_back(
        {.t_start_ns = to_ns(a),
         .t_end_ns = to_ns(a + s.interval_s),
         .activity = static_cast<float>(std::max(
             0.0, kComputeActivityPct * p.compute + kCommActivityPct * p.communication + s.noise_pct * n)),
         .interconnect = static_cast<float>(kLinkBusyBytesPerS * (p.communication + overlapped) +
                                            kLinkBackgroundBytesPerS),
         .bound = bound});
  }
  return out;
}

/// The mean and standard deviation of the planted iterations whose start and end lie in [from_s, to_s].
auto planted(const TrainingShape& shape, double from_s, double to_s) -> std::array<double, 2> {
  const auto starts = synthetic::training_starts(shape);
  std::vector<double> len;
  for (std::size_t j = 0; j + 1 < starts.size(); ++j) {
    if (starts[j] >= from_s && starts[j + 1] <= to_s) len.push_back(starts[j + 1] - starts[j]);
  }
  double mean = 0;
  for (double l : len) mean += l;
  mean /= static_cast<double>(len.size());
  double var = 0;
  for (double l : len) var += (l - mean) * (l - mean);
  return {mean, std::sqrt(var / static_cast<double>(len.size() - 1))};
}

struct PeriodCase {
  double period_s;
  double interval_s;
  double jitter_pct;
  double drift_pct;
  double noise_pct;
  double drop_share;
};

class IterationPeriodTest : public ::testing::TestWithParam<PeriodCase> {};

TEST_P(IterationPeriodTest, finds_the_planted_period_within_2_percent_and_its_jitter) {
  const PeriodCase& c = GetParam();
  const TrainingShape shape{.period_s = c.period_s,
                            .jitter_pct = c.jitter_pct,
                            .drift_pct = c.drift_pct,
                            .first_start_s = 0.137,
                            .seconds = 30.0,
                            .seed = 11};
  const auto points = training_points(
      shape, {.interval_s = c.interval_s, .noise_pct = c.noise_pct, .drop_share = c.drop_share});
  const IterationEstimate e = estimate_iteration(points);
  const auto [mean_s, std_s] = planted(shape, 0.0, 30.0);
  ASSERT_TRUE(e.periodic) << e.note << " confidence " << e.confidence;
  EXPECT_TRUE(e.note.empty());
  EXPECT_NEAR(e.period_s, mean_s, 0.02 * mean_s);
  EXPECT_GE(e.confidence, kIterationMinConfidence);
  EXPECT_LE(e.confidence, 1.0);
  EXPECT_EQ(e.window_ns, to_ns(30.0) - kT0Ns);
  if (c.drift_pct == 0.0) {  // with drift the lengths also spread by the drift
    // The planted spread, plus what the sampling adds: each start is found to within 9% of a sample, a length
    // (two starts) to 18%.
    const double floor_s = 0.15 * c.interval_s;
    EXPECT_NEAR(e.jitter_s, std_s, 0.25 * std_s + floor_s) << "planted " << std_s;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Schedules, IterationPeriodTest,
    ::testing::Values(PeriodCase{0.25, 0.01, 0.0, 0.0, 0.0, 0.0}, PeriodCase{1.0, 0.01, 0.0, 0.0, 0.0, 0.0},
                      PeriodCase{3.7, 0.01, 0.0, 0.0, 0.0, 0.0}, PeriodCase{1.0, 0.1, 0.0, 0.0, 0.0, 0.0},
                      PeriodCase{3.7, 0.1, 0.0, 0.0, 0.0, 0.0}, PeriodCase{0.25, 0.01, 3.0, 0.0, 5.0, 0.0},
                      PeriodCase{1.0, 0.01, 3.0, 0.0, 5.0, 0.0}, PeriodCase{3.7, 0.01, 3.0, 0.0, 5.0, 0.0},
                      PeriodCase{1.0, 0.1, 3.0, 0.0, 5.0, 0.0}, PeriodCase{3.7, 0.1, 2.0, 0.0, 5.0, 0.0},
                      PeriodCase{1.0, 0.01, 2.0, 8.0, 5.0, 0.0}, PeriodCase{0.25, 0.01, 0.0, 8.0, 0.0, 0.0},
                      PeriodCase{1.0, 0.01, 3.0, 0.0, 10.0, 0.15}, PeriodCase{3.7, 0.1, 2.0, 0.0, 5.0, 0.15},
                      // 5.5, 4.5 and 7.5 samples a period: the sampled series repeats exactly at the double.
                      PeriodCase{0.55, 0.1, 0.0, 0.0, 0.0, 0.0}, PeriodCase{0.45, 0.1, 0.0, 0.0, 0.0, 0.0},
                      PeriodCase{0.75, 0.1, 0.0, 0.0, 0.0, 0.0}));

TEST(IterationTest, a_clean_iteration_splits_into_its_parts_strip_and_offset) {
  const TrainingShape shape{.period_s = 1.0, .first_start_s = 0.123, .seconds = 30.0};
  const auto points = training_points(shape, {.interval_s = 0.01});
  const IterationEstimate e = estimate_iteration(points);
  ASSERT_TRUE(e.periodic) << e.note;
  EXPECT_NEAR(e.period_s, 1.0, 0.002);
  EXPECT_NEAR(e.jitter_s, 0.0, 0.001);
  const double bin = 1.0 / static_cast<double>(kIterationStripBins);
  const auto ratio = [&e](IterationPart p) { return e.part_ratio[static_cast<std::size_t>(p)]; };
  EXPECT_NEAR(ratio(IterationPart::Compute), 0.7, bin);
  EXPECT_NEAR(ratio(IterationPart::Communication), 0.2, bin);
  EXPECT_NEAR(ratio(IterationPart::Idle), 0.1, bin);
  EXPECT_DOUBLE_EQ(ratio(IterationPart::Memory), 0.0);
  EXPECT_DOUBLE_EQ(ratio(IterationPart::Latency), 0.0);
  EXPECT_NEAR(e.communication_ratio, 0.2, bin);
  EXPECT_DOUBLE_EQ(e.exposed_communication_ratio, ratio(IterationPart::Communication));
  // The strip starts at the end of the idle-and-communication stretch: compute, then communication, then
  // idle.
  std::array<double, kIterationPartCount> bins{};
  for (IterationPart p : e.strip) bins[static_cast<std::size_t>(p)] += 1.0;
  EXPECT_NEAR(bins[static_cast<std::size_t>(IterationPart::Compute)], 0.7 * kIterationStripBins, 1.0);
  EXPECT_NEAR(bins[static_cast<std::size_t>(IterationPart::Communication)], 0.2 * kIterationStripBins, 1.0);
  EXPECT_NEAR(bins[static_cast<std::size_t>(IterationPart::Idle)], 0.1 * kIterationStripBins, 1.0);
  EXPECT_EQ(e.strip.front(), IterationPart::Compute);
  EXPECT_EQ(e.strip[35], IterationPart::Communication);
  EXPECT_EQ(e.strip.back(), IterationPart::Idle);
  EXPECT_TRUE(std::is_sorted(e.strip.begin(), e.strip.end()));  // Compute < Communication < Idle
  // The offset: the newest communication start (t = 29.823 s, 0.7 s after the start at 29.123 s) in epoch ns
  // mod the estimated period, to 2 ms.
  const auto p_ns = std::llround(e.period_s * 1e9);
  const double expected_s = static_cast<double>(to_ns(29.823) % p_ns) / 1e9;
  const double d = std::fabs(e.communication_offset_s - expected_s);
  EXPECT_LT(std::min(d, e.period_s - d), 0.002) << e.communication_offset_s << " vs " << expected_s;
  EXPECT_GE(e.communication_offset_s, 0.0);
  EXPECT_LT(e.communication_offset_s, e.period_s);
}

TEST(IterationTest, communication_that_compute_overlaps_is_not_exposed) {
  // Bytes move over the last 30% of the iteration's compute too: busy 50% of the iteration, exposed 20%.
  const TrainingShape shape{.period_s = 0.5, .first_start_s = 0.05, .seconds = 30.0};
  const auto points = training_points(shape, {.interval_s = 0.01}, 0.3);
  const IterationEstimate e = estimate_iteration(points);
  ASSERT_TRUE(e.periodic) << e.note;
  const double bin = 1.0 / static_cast<double>(kIterationStripBins);
  EXPECT_NEAR(e.communication_ratio, 0.5, bin);
  EXPECT_NEAR(e.exposed_communication_ratio, 0.2, bin);
  EXPECT_NEAR(e.part_ratio[static_cast<std::size_t>(IterationPart::Compute)], 0.7, bin);
  // The communication starts with the overlapped bytes, 40% (0.2 s) into the iteration (newest: 29.55 + 0.2
  // s).
  const auto p_ns = std::llround(e.period_s * 1e9);
  const double expected_s = static_cast<double>(to_ns(29.75) % p_ns) / 1e9;
  const double d = std::fabs(e.communication_offset_s - expected_s);
  EXPECT_LT(std::min(d, e.period_s - d), 0.002) << e.communication_offset_s << " vs " << expected_s;
}

/// Box-averaged samples of a serving schedule: DRAM-bound decode while busy.
auto serving_points(const ServingShape& shape, double interval_s) -> std::vector<IterationPoint> {
  const auto busy = synthetic::serving_busy(shape);
  std::vector<IterationPoint> out;
  const auto count = std::llround(shape.seconds / interval_s);
  for (std::int64_t k = 0; k < count; ++k) {
    const double a = static_cast<double>(k) * interval_s;
    const double b = synthetic::busy_share(busy, a, a + interval_s);
    out.push_back({.t_start_ns = to_ns(a),
                   .t_end_ns = to_ns(a + interval_s),
                   .activity = static_cast<float>(91.0 * b),
                   .interconnect = static_cast<float>(1e8 * b + kLinkBackgroundBytesPerS),
                   .bound = b >= 0.5 ? Bound::Memory : Bound::Idle});
  }
  return out;
}

TEST(IterationTest, serving_bursts_are_not_periodic) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    for (double interval_s : {0.01, 0.1}) {
      const IterationEstimate e = estimate_iteration(serving_points({.seed = seed}, interval_s));
      EXPECT_FALSE(e.periodic) << "seed " << seed << " interval " << interval_s << ": period " << e.period_s
                               << " confidence " << e.confidence;
      EXPECT_FALSE(e.note.empty());
      EXPECT_TRUE(std::isnan(e.period_s));
      EXPECT_TRUE(std::isnan(e.part_ratio[0]));
      EXPECT_LT(e.confidence, kIterationMinConfidence);
    }
  }
}

auto constant_points(float activity_pct, double noise_pct) -> std::vector<IterationPoint> {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0.0, noise_pct);
  std::vector<IterationPoint> out;
  for (int n = 0; n < 3000; ++n) {
    out.push_back({.t_start_ns = kT0Ns + n * 10'000'000LL,
                   .t_end_ns = kT0Ns + (n + 1) * 10'000'000LL,
                   .activity = static_cast<float>(std::max(0.0, activity_pct + noise(rng))),
                   .interconnect = 0.0F,
                   .bound = activity_pct > 5 ? Bound::Compute : Bound::Idle});
  }
  return out;
}

TEST(IterationTest, constant_busy_and_all_idle_are_not_periodic) {
  const IterationEstimate busy = estimate_iteration(constant_points(97.0F, 2.0));
  EXPECT_FALSE(busy.periodic);
  EXPECT_FALSE(busy.note.empty());
  const IterationEstimate flat = estimate_iteration(constant_points(97.0F, 0.0));
  EXPECT_FALSE(flat.periodic);
  EXPECT_EQ(flat.note, "no activity change");
  const IterationEstimate idle = estimate_iteration(constant_points(0.0F, 0.0));
  EXPECT_FALSE(idle.periodic);
  EXPECT_EQ(idle.note, "no activity change");
  EXPECT_EQ(idle.window_ns, 30 * kNsPerS);
}

TEST(IterationTest, too_short_a_window_is_not_periodic) {
  const TrainingShape shape{.period_s = 1.0, .seconds = 2.5};
  const IterationEstimate e = estimate_iteration(training_points(shape, {.interval_s = 0.01}));
  EXPECT_FALSE(e.periodic);
  EXPECT_FALSE(e.note.empty());
  EXPECT_EQ(estimate_iteration(std::vector<IterationPoint>(5)).note, "too few samples");
  EXPECT_EQ(estimate_iteration({}).note, "too few samples");
  // The same job over 30 s is periodic: the window, not the job, was too short.
  EXPECT_TRUE(estimate_iteration(training_points({.period_s = 1.0}, {.interval_s = 0.01})).periodic);
}

TEST(IterationTest, a_period_under_4_samples_is_not_reported) {
  // 0.15 s at 100 ms: 1.5 samples a period, which the samples repeat every 3.
  const IterationEstimate e = estimate_iteration(training_points({.period_s = 0.15}, {.interval_s = 0.1}));
  EXPECT_FALSE(e.periodic) << e.period_s;
  EXPECT_EQ(e.note, "period under 4 samples");
  EXPECT_TRUE(estimate_iteration(training_points({.period_s = 0.15}, {.interval_s = 0.01})).periodic);
}

TEST(IterationTest, iteration_point_takes_sm_active_else_compute_sol_and_sums_the_links) {
  SolSample s;
  s.t_start_ns = 10;
  s.t_end_ns = 20;
  s.compute_sol_pct = 40.0;
  s.bound = Bound::Latency;
  IterationPoint p = iteration_point(s);
  EXPECT_FLOAT_EQ(p.activity, 40.0F);
  EXPECT_TRUE(std::isnan(p.interconnect));
  EXPECT_EQ(p.bound, Bound::Latency);
  s.metrics[index_of(MetricId::SmActive)] = 75.0;
  s.metrics[index_of(MetricId::NvlinkRxBytesPerS)] = 1e9;
  s.metrics[index_of(MetricId::NvlinkTxBytesPerS)] = 2e9;
  s.metrics[index_of(MetricId::PcieWriteBytesPerS)] = 5e8;
  p = iteration_point(s);
  EXPECT_FLOAT_EQ(p.activity, 75.0F);
  EXPECT_FLOAT_EQ(p.interconnect, 3.5e9F);
  EXPECT_EQ(p.t_start_ns, 10);
  EXPECT_EQ(p.t_end_ns, 20);
}

auto sol_sample(const IterationPoint& p) -> SolSample {
  SolSample s;
  s.t_start_ns = p.t_start_ns;
  s.t_end_ns = p.t_end_ns;
  s.bound = p.bound;
  s.metrics[index_of(MetricId::SmActive)] = p.activity;
  s.metrics[index_of(MetricId::NvlinkRxBytesPerS)] = p.interconnect;
  return s;
}

TEST(IterationTest, the_tracker_estimates_every_2_s_over_a_bounded_window) {
  const TrainingShape shape{.period_s = 0.8, .jitter_pct = 2.0, .seconds = 300.0};
  const auto points = training_points(shape, {.interval_s = 0.01});
  IterationTracker tracker;
  std::vector<std::int64_t> at;
  for (const IterationPoint& p : points) {
    tracker.add(sol_sample(p));
    if (at.empty() || tracker.estimate().estimated_at_ns != at.back())
      at.push_back(tracker.estimate().estimated_at_ns);
    EXPECT_LE(tracker.estimate().window_ns, kIterationWindowNs);
  }
  ASSERT_EQ(at.size(), 150U);  // 300 s / 2 s
  EXPECT_EQ(at.front(), to_ns(0.01));
  for (std::size_t i = 1; i < at.size(); ++i) EXPECT_EQ(at[i] - at[i - 1], kIterationEstimateEveryNs);
  const IterationEstimate& e = tracker.estimate();
  ASSERT_TRUE(e.periodic) << e.note;
  EXPECT_EQ(e.window_ns, kIterationWindowNs);  // the last 30 s only
  const auto [mean_s, std_s] = planted(shape, 270.0, 300.0);
  EXPECT_NEAR(e.period_s, mean_s, 0.02 * mean_s);
  // A sample older than the newest (a replay sought back) starts afresh.
  tracker.add(sol_sample(points.front()));
  EXPECT_FALSE(tracker.estimate().periodic);
  EXPECT_EQ(tracker.estimate().window_ns, 10'000'000);
  tracker.clear();
  EXPECT_EQ(tracker.estimate().window_ns, 0);
}

}  // namespace
}  // namespace solscope::core
