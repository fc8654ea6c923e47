// Phase detection: bound-class runs, the shortest merged first below the minimum phase length.
#include "report/detail/phase_detection.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace solscope::report {
namespace {

using core::Bound;
constexpr std::int64_t kMs = core::kNsPerMs;

/// `count` samples of 100 ms from `start_ms` with one class and figures.
void append(std::vector<PhasePoint>& points, int count, Bound bound, float compute, core::Pipe pipe,
            float power_w = 100.0F) {
  for (int i = 0; i < count; ++i) {
    const std::int64_t start = points.empty() ? 0 : points.back().t_end_ns;
    points.push_back(PhasePoint{.t_start_ns = start,
                                .t_end_ns = start + 100 * kMs,
                                .compute_sol_pct = compute,
                                .memory_sol_pct = 10.0F,
                                .gpu_util_pct = 50.0F,
                                .sm_active_pct = 40.0F,
                                .power_w = power_w,
                                .compute_pipe = pipe,
                                .memory_path = core::MemPath::Dram,
                                .bound = bound});
  }
}

TEST(MinPhase, IsOneSecondOrOnePercentOfTheSampledTime) {
  EXPECT_EQ(min_phase_ns(10 * core::kNsPerS), core::kNsPerS);
  EXPECT_EQ(min_phase_ns(100 * core::kNsPerS), core::kNsPerS);
  EXPECT_EQ(min_phase_ns(core::kNsPerHour), 36 * core::kNsPerS);
}

TEST(DetectPhases, ShortRunJoinsTheEarlierNeighbourOnATieAndBoundariesStayExact) {
  std::vector<PhasePoint> points;
  append(points, 20, Bound::Idle, 0.0F, core::Pipe::Tensor);      // 0.0 - 2.0 s
  append(points, 1, Bound::Latency, 5.0F, core::Pipe::Issue);     // 2.0 - 2.1 s: shorter than 1 s
  append(points, 20, Bound::Compute, 80.0F, core::Pipe::Tensor);  // 2.1 - 4.1 s
  append(points, 30, Bound::Memory, 20.0F, core::Pipe::Fma);      // 4.1 - 7.1 s
  const auto phases = detect_phases(points, core::kNsPerS);
  ASSERT_EQ(phases.size(), 3U);
  EXPECT_EQ(phases[0].bound, Bound::Idle);
  EXPECT_EQ(phases[0].start_ns, 0);
  EXPECT_EQ(phases[0].end_ns, 2100 * kMs);
  EXPECT_EQ(phases[0].samples, 21U);
  EXPECT_EQ(phases[0].bound_ns[bound_slot(Bound::Idle)], 2000 * kMs);
  EXPECT_EQ(phases[0].bound_ns[bound_slot(Bound::Latency)], 100 * kMs);
  EXPECT_EQ(phases[1].bound, Bound::Compute);
  EXPECT_EQ(phases[1].start_ns, 2100 * kMs);
  EXPECT_EQ(phases[1].end_ns, 4100 * kMs);
  EXPECT_EQ(phases[2].bound, Bound::Memory);
  EXPECT_EQ(phases[2].start_ns, 4100 * kMs);
  EXPECT_EQ(phases[2].end_ns, 7100 * kMs);
  EXPECT_EQ(phases[2].sampled_ns, 3000 * kMs);
  // Idle phase: 20 samples at 0 % and one at 5 %: 5/21 %, named by the pipe that set it longest (tensor).
  EXPECT_DOUBLE_EQ(phases[0].figures.compute_sol_pct, 5.0 / 21.0);
  EXPECT_EQ(phases[0].figures.compute_pipe, core::Pipe::Tensor);
  EXPECT_DOUBLE_EQ(phases[1].figures.compute_sol_pct, 80.0);
  EXPECT_EQ(phases[2].figures.compute_pipe, core::Pipe::Fma);
  // 100 W for 3 s = 300 J.
  EXPECT_DOUBLE_EQ(phases[2].figures.energy_j, 300.0);
  EXPECT_DOUBLE_EQ(phases[2].figures.mean_power_w, 100.0);
  EXPECT_EQ(phases[2].figures.power_known_ns, 3000 * kMs);
}

TEST(DetectPhases, ShortRunJoinsTheLongerNeighbour) {
  std::vector<PhasePoint> points;
  append(points, 12, Bound::Idle, 0.0F, core::Pipe::Tensor);      // 1.2 s
  append(points, 3, Bound::Latency, 5.0F, core::Pipe::Issue);     // 0.3 s
  append(points, 25, Bound::Compute, 80.0F, core::Pipe::Tensor);  // 2.5 s: longer, takes the short run
  const auto phases = detect_phases(points, core::kNsPerS);
  ASSERT_EQ(phases.size(), 2U);
  EXPECT_EQ(phases[0].end_ns, 1200 * kMs);
  EXPECT_EQ(phases[1].bound, Bound::Compute);
  EXPECT_EQ(phases[1].start_ns, 1200 * kMs);
  EXPECT_EQ(phases[1].bound_ns[bound_slot(Bound::Latency)], 300 * kMs);
  EXPECT_DOUBLE_EQ(phases[1].figures.compute_sol_pct, (3 * 5.0 + 25 * 80.0) / 28.0);
}

TEST(DetectPhases, NoiseCollapsesIntoTheDominantClass) {
  // Alternating compute, compute, memory samples (each run 0.1-0.2 s) for 3 s: one compute-bound phase.
  std::vector<PhasePoint> points;
  for (int i = 0; i < 10; ++i) {
    append(points, 2, Bound::Compute, 70.0F, core::Pipe::Tensor);
    append(points, 1, Bound::Memory, 20.0F, core::Pipe::Fma);
  }
  const auto phases = detect_phases(points, core::kNsPerS);
  ASSERT_EQ(phases.size(), 1U);
  EXPECT_EQ(phases[0].bound, Bound::Compute);
  EXPECT_EQ(phases[0].start_ns, 0);
  EXPECT_EQ(phases[0].end_ns, 3000 * kMs);
  EXPECT_EQ(phases[0].bound_ns[bound_slot(Bound::Compute)], 2000 * kMs);
  EXPECT_EQ(phases[0].bound_ns[bound_slot(Bound::Memory)], 1000 * kMs);
}

TEST(DetectPhases, SeriesShorterThanTheMinimumIsOnePhase) {
  std::vector<PhasePoint> points;
  append(points, 2, Bound::Idle, 0.0F, core::Pipe::Tensor);
  append(points, 3, Bound::Latency, 5.0F, core::Pipe::Issue);
  const auto phases = detect_phases(points, core::kNsPerS);
  ASSERT_EQ(phases.size(), 1U);
  EXPECT_EQ(phases[0].bound, Bound::Latency);
  EXPECT_EQ(phases[0].samples, 5U);
  EXPECT_TRUE(detect_phases({}, core::kNsPerS).empty());
}

TEST(DetectPhases, UnknownFiguresStayUnknown) {
  std::vector<PhasePoint> points;
  append(points, 15, Bound::Unknown, std::nanf(""), core::Pipe::kCount, std::nanf(""));
  const auto phases = detect_phases(points, core::kNsPerS);
  ASSERT_EQ(phases.size(), 1U);
  EXPECT_EQ(phases[0].bound, Bound::Unknown);
  EXPECT_TRUE(std::isnan(phases[0].figures.compute_sol_pct));
  EXPECT_EQ(phases[0].figures.compute_pipe, core::Pipe::kCount);
  EXPECT_TRUE(std::isnan(phases[0].figures.energy_j));
  EXPECT_TRUE(std::isnan(phases[0].figures.mean_power_w));
  EXPECT_EQ(phases[0].figures.power_known_ns, 0);
  EXPECT_DOUBLE_EQ(phases[0].figures.gpu_util_pct, 50.0);
}

}  // namespace
}  // namespace solscope::report
