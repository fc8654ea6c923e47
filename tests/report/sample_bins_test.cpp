// The bounded resolution of a GPU's samples (sample_bins.hpp): one bin per sample up to the limit, then
// pairwise merges, so memory stays bounded whatever the trace's length while sums, phases and the chart
// keep their figures.
#include "report/detail/sample_bins.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "report/detail/phase_detection.hpp"
#include "report/report_series.hpp"

namespace solscope::report {
namespace {

constexpr std::int64_t kTenMs = 10 * core::kNsPerMs;

auto point(std::int64_t i, core::Bound bound, float compute) -> PhasePoint {
  return PhasePoint{.t_start_ns = i * kTenMs,
                    .t_end_ns = (i + 1) * kTenMs,
                    .compute_sol_pct = compute,
                    .memory_sol_pct = 10.0F,
                    .gpu_util_pct = 50.0F,
                    .sm_active_pct = 40.0F,
                    .power_w = 100.0F,
                    .compute_pipe = core::Pipe::Tensor,
                    .memory_path = core::MemPath::Dram,
                    .bound = bound};
}

auto samples_of(const SampleBins& bins) -> std::vector<std::uint64_t> {
  std::vector<std::uint64_t> out;
  for (const SampleBin& b : bins.bins()) out.push_back(b.samples);
  return out;
}

TEST(SampleBins, OneBinPerSampleUpToTheLimitThenNeighboursMergePairwise) {
  SampleBins bins(4);
  for (int i = 0; i < 4; ++i) bins.add(point(i, core::Bound::Idle, 0.0F));
  EXPECT_EQ(samples_of(bins), (std::vector<std::uint64_t>{1, 1, 1, 1}));
  EXPECT_EQ(bins.samples_per_bin(), 1U);
  bins.add(point(4, core::Bound::Idle, 0.0F));  // full: pairs merge, the fifth sample opens a bin of 2
  EXPECT_EQ(samples_of(bins), (std::vector<std::uint64_t>{2, 2, 1}));
  EXPECT_EQ(bins.samples_per_bin(), 2U);
  for (int i = 5; i < 10; ++i) bins.add(point(i, core::Bound::Idle, 0.0F));
  EXPECT_EQ(samples_of(bins), (std::vector<std::uint64_t>{4, 4, 2}));
  EXPECT_EQ(bins.bins()[1].t_start_ns, 4 * kTenMs);
  EXPECT_EQ(bins.bins()[1].t_end_ns, 8 * kTenMs);
  EXPECT_EQ(bins.bins()[2].sampled_ns(), 2 * kTenMs);
}

TEST(SampleBins, AnyLengthStaysWithinTheLimitAndKeepsItsSums) {
  // 24 hours at 10 ms would be 8.64 M samples; 1 M shows the bound (the old builder kept 40 bytes each).
  constexpr std::int64_t kSamples = 1'000'000;
  SampleBins bins;
  for (std::int64_t i = 0; i < kSamples; ++i)
    bins.add(point(i, core::Bound::Compute, i % 2 == 0 ? 20.0F : 60.0F));
  EXPECT_LE(bins.bins().size(), kMaxSampleBins);
  EXPECT_GE(bins.bins().size(), kMaxSampleBins / 2);
  std::uint64_t samples = 0;
  std::int64_t sampled_ns = 0;
  for (const SampleBin& b : bins.bins()) {
    samples += b.samples;
    sampled_ns += b.sampled_ns();
  }
  EXPECT_EQ(samples, static_cast<std::uint64_t>(kSamples));
  EXPECT_EQ(sampled_ns, kSamples * kTenMs);
  const Figures all = bin_figures(bins.bins());
  EXPECT_NEAR(all.compute_sol_pct, 40.0, 1e-9);
  EXPECT_EQ(all.compute_pipe, core::Pipe::Tensor);
  EXPECT_NEAR(all.energy_j, 100.0 * static_cast<double>(kSamples) * 0.01, 1e-6);
}

TEST(SampleBins, PhasesAndChartOfMergedBinsMatchTheExactOnes) {
  // 100,000 samples: 500 s idle, then 500 s compute-bound. Bins of 16 samples end exactly at the change
  // and at each edge of the chart's 125 buckets of 8 s.
  std::vector<PhasePoint> points;
  SampleBins bins;
  for (std::int64_t i = 0; i < 100'000; ++i) {
    const bool busy = i >= 50'000;
    points.push_back(point(i, busy ? core::Bound::Compute : core::Bound::Idle, busy ? 90.0F : 0.0F));
    bins.add(points.back());
  }
  ASSERT_EQ(bins.samples_per_bin(), 16U);
  const std::int64_t min_ns = min_phase_ns(100'000 * kTenMs);
  const auto exact = detect_phases(points, min_ns);
  const auto binned = detect_bin_phases(bins.bins(), min_ns);
  ASSERT_EQ(exact.size(), 2U);
  ASSERT_EQ(binned.size(), exact.size());
  for (std::size_t i = 0; i < exact.size(); ++i) {
    EXPECT_EQ(binned[i].bound, exact[i].bound);
    EXPECT_EQ(binned[i].start_ns, exact[i].start_ns);
    EXPECT_EQ(binned[i].end_ns, exact[i].end_ns);
    EXPECT_EQ(binned[i].samples, exact[i].samples);
    EXPECT_EQ(binned[i].sampled_ns, exact[i].sampled_ns);
    EXPECT_NEAR(binned[i].figures.compute_sol_pct, exact[i].figures.compute_sol_pct, 1e-9);
  }
  const Series a = downsample_series(points, 125);
  const Series b = downsample_bins(bins.bins(), 125);
  ASSERT_EQ(b.t_ns.size(), a.t_ns.size());
  EXPECT_EQ(b.t_ns, a.t_ns);
  for (std::size_t i = 0; i < a.t_ns.size(); ++i) EXPECT_FLOAT_EQ(b.compute_sol_pct[i], a.compute_sol_pct[i]);
}

TEST(SampleBins, AMergedBinTakesTheClassHoldingMostOfItsTime) {
  SampleBin bin = SampleBin::of(point(0, core::Bound::Idle, 0.0F));
  bin.merge(SampleBin::of(point(1, core::Bound::Compute, 90.0F)));
  EXPECT_EQ(bin.bound, core::Bound::Idle) << "a tie keeps the class it had";
  bin.merge(SampleBin::of(point(2, core::Bound::Compute, 90.0F)));
  EXPECT_EQ(bin.bound, core::Bound::Compute);
  EXPECT_EQ(bin.samples, 3U);
  EXPECT_NEAR(bin.compute.value(), 60.0, 1e-9);
}

}  // namespace
}  // namespace solscope::report
