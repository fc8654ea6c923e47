#include "core/window.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/attainable_gap.hpp"
#include "core/derive.hpp"
#include "core/limiter.hpp"

namespace solscope::core {
namespace {

auto sol(std::int64_t start_ns, std::int64_t end_ns, double tensor, double dram, double gr = 100.0)
    -> SolSample {
  RawSample raw;
  raw.t_start_ns = start_ns;
  raw.t_end_ns = end_ns;
  raw.source = SourceKind::PmSampling;
  raw.set(MetricId::TensorPipe, tensor);
  raw.set(MetricId::DramThroughput, dram);
  raw.set(MetricId::GrActive, gr);
  return derive(raw, DeviceInfo{});
}

TEST(WindowTest, empty_window_is_unknown) {
  WindowAccumulator acc;
  EXPECT_TRUE(acc.empty());
  const SolSample s = acc.result();
  EXPECT_TRUE(std::isnan(s.compute_sol_pct));
  EXPECT_EQ(s.bound, Bound::Unknown);
}

TEST(WindowTest, mean_is_weighted_by_duration) {
  // 10 ms at 90% tensor, 30 ms at 10%: (0.9*10 + 0.1*30) / 40 = 30%.
  const std::vector<SolSample> samples{sol(0, 10'000'000, 90, 5), sol(10'000'000, 40'000'000, 10, 85)};
  const SolSample w = aggregate(samples);
  EXPECT_DOUBLE_EQ(w.compute_sol_pct, 30.0);
  EXPECT_DOUBLE_EQ(w.memory_sol_pct, (5.0 * 10 + 85.0 * 30) / 40);
  EXPECT_EQ(w.t_start_ns, 0);
  EXPECT_EQ(w.t_end_ns, 40'000'000);
  EXPECT_EQ(w.memory_path, MemPath::Dram);
  EXPECT_EQ(w.bound, Bound::Memory);
}

TEST(WindowTest, nan_samples_do_not_pull_means_to_zero) {
  SolSample unknown = sol(10, 20, 0, 0);
  unknown.compute_sol_pct = kUnknown;
  unknown.pipe_pct.fill(kUnknown);
  unknown.metrics[index_of(MetricId::TensorPipe)] = kUnknown;
  const std::vector<SolSample> samples{sol(0, 10, 50, 20), unknown};
  const SolSample w = aggregate(samples);
  EXPECT_DOUBLE_EQ(w.compute_sol_pct, 50.0);
  EXPECT_DOUBLE_EQ(w.metric(MetricId::TensorPipe), 50.0);
}

TEST(WindowTest, names_the_pipe_with_highest_mean) {
  RawSample a;
  a.t_end_ns = 10;
  a.set(MetricId::TensorPipe, 80);
  a.set(MetricId::AluPipe, 10);
  RawSample b = a;
  b.t_start_ns = 10;
  b.t_end_ns = 40;
  b.set(MetricId::TensorPipe, 0);
  b.set(MetricId::AluPipe, 40);
  const std::vector<SolSample> samples{derive(a, DeviceInfo{}), derive(b, DeviceInfo{})};
  const SolSample w = aggregate(samples);
  EXPECT_EQ(w.compute_pipe, Pipe::Alu);  // ALU mean 32.5 > tensor mean 20
  EXPECT_DOUBLE_EQ(w.compute_sol_pct, (80.0 * 10 + 40.0 * 30) / 40);
}

TEST(WindowTest, gaps_and_over_100_survive_aggregation) {
  SolSample a = sol(0, 10, 103, 10);
  a.flags = kSampleGapBefore;
  const std::vector<SolSample> samples{a, sol(10, 20, 101, 10)};
  const SolSample w = aggregate(samples);
  EXPECT_DOUBLE_EQ(w.compute_sol_pct, 102.0);
  EXPECT_EQ(w.flags & kSampleGapBefore, kSampleGapBefore);
}

TEST(WindowTest, zero_duration_samples_still_count) {
  const std::vector<SolSample> samples{sol(5, 5, 40, 0), sol(5, 5, 60, 0)};
  EXPECT_DOUBLE_EQ(aggregate(samples).compute_sol_pct, 50.0);
}

TEST(WindowTest, other_devices_are_ignored) {
  WindowAccumulator acc;
  acc.add(sol(0, 10, 40, 0));
  SolSample other = sol(0, 10, 100, 0);
  other.device_index = 7;
  acc.add(other);
  EXPECT_EQ(acc.count(), 1u);
  EXPECT_DOUBLE_EQ(acc.result().compute_sol_pct, 40.0);
  EXPECT_EQ(acc.result().device_index, 0u);
}

TEST(WindowTest, attainable_sol_is_averaged_where_known) {
  SolSample a = sol(0, 10, 40, 0);
  a.attainable_compute_sol_pct = 50.0;
  SolSample b = sol(10, 40, 40, 0);
  b.attainable_compute_sol_pct = 70.0;
  const SolSample c = sol(40, 50, 40, 0);  // no workload known then: skipped, not 0
  const std::vector<SolSample> samples{a, b, c};
  const SolSample w = aggregate(samples);
  EXPECT_DOUBLE_EQ(w.attainable_compute_sol_pct, (50.0 * 10 + 70.0 * 30) / 40);
  EXPECT_TRUE(std::isnan(w.attainable_memory_sol_pct));
}

TEST(WindowTest, the_attainable_limiter_is_the_one_held_longest) {
  SolSample a = sol(0, 10, 40, 0);
  a.attainable_limiter = Limiter::Compute;
  SolSample b = sol(10, 40, 40, 0);
  b.attainable_limiter = Limiter::Memory;
  SolSample c = sol(40, 55, 40, 0);
  c.attainable_limiter = Limiter::Compute;
  const SolSample d = sol(55, 100, 40, 0);  // no ceiling then: not counted
  const std::vector<SolSample> samples{a, b, c, d};
  EXPECT_EQ(aggregate(samples).attainable_limiter, Limiter::Memory)
      << "30 ns of memory against 25 of compute";
  const std::vector<SolSample> none{d};
  EXPECT_EQ(aggregate(none).attainable_limiter, Limiter::kCount);
}

TEST(AttainableGapTest, attainable_minus_live_in_points_and_nan_when_either_is_unknown) {
  SolSample s = sol(0, 10, 28.7, 75.1);
  s.attainable_compute_sol_pct = 41.0;
  const AttainableGap gap = attainable_gap(s);
  EXPECT_NEAR(gap.compute_pts, 12.3, 1e-12);
  EXPECT_TRUE(std::isnan(gap.memory_pts)) << "no attainable Memory SOL";
  s.attainable_memory_sol_pct = 70.0;
  EXPECT_NEAR(attainable_gap(s).memory_pts, -5.1, 1e-12) << "the GPU beats the model: a negative gap";
  EXPECT_TRUE(std::isnan(gap_pts(50.0, kUnknown)));
}

TEST(LimiterTest, names_read_back_and_unknown_is_kcount) {
  for (std::size_t i = 0; i < kLimiterCount; ++i) {
    const auto l = static_cast<Limiter>(i);
    EXPECT_EQ(limiter_from_string(to_string(l)), l);
  }
  EXPECT_EQ(to_string(Limiter::Overhead), "kernel_overhead");
  EXPECT_EQ(limiter_text(Limiter::Memory), "memory bandwidth");
  EXPECT_EQ(to_string(Limiter::kCount), "unknown");
  EXPECT_FALSE(limiter_from_string("unknown").has_value());
}

TEST(WindowTest, splits_into_epoch_aligned_windows_by_midpoint) {
  const std::int64_t ms = 1'000'000;
  std::vector<SolSample> samples;
  for (int i = 0; i < 25; ++i) samples.push_back(sol(i * 10 * ms, (i + 1) * 10 * ms, i < 10 ? 20 : 80, 0));
  const auto windows = aggregate_windows(samples, 100 * ms);
  ASSERT_EQ(windows.size(), 3u);
  EXPECT_DOUBLE_EQ(windows[0].compute_sol_pct, 20.0);
  EXPECT_DOUBLE_EQ(windows[1].compute_sol_pct, 80.0);
  EXPECT_EQ(windows[2].t_start_ns, 200 * ms);
  EXPECT_EQ(windows[2].t_end_ns, 250 * ms);
  EXPECT_TRUE(aggregate_windows(samples, 0).empty());
}

TEST(WindowTest, reset_forgets_everything) {
  WindowAccumulator acc;
  acc.add(sol(0, 10, 40, 0));
  acc.reset();
  EXPECT_TRUE(acc.empty());
  acc.add(sol(20, 30, 10, 0));
  EXPECT_DOUBLE_EQ(acc.result().compute_sol_pct, 10.0);
  EXPECT_EQ(acc.result().t_start_ns, 20);
}

TEST(WeightedMeanTest, weighs_known_values_and_skips_nan) {
  WeightedMean m;
  EXPECT_TRUE(std::isnan(m.value())) << "no value known";
  m.add(10.0, 1.0);
  m.add(kUnknown, 5.0);
  m.add(40.0, 2.0);
  EXPECT_DOUBLE_EQ(m.value(), 30.0);
  EXPECT_DOUBLE_EQ(m.weight, 3.0) << "the NaN value's weight is not counted";
  EXPECT_DOUBLE_EQ(m.weighted_sum, 90.0);
}

}  // namespace
}  // namespace solscope::core
