// ReportBuilder: per-GPU figures, energy, bound time, headroom, phases and kernels over hand-built series.
#include "report/report_builder.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "report/report_test_support.hpp"

namespace solscope::report {
namespace {

using core::Bound;
using testing::kMs;
using testing::Load;

const Load kIdle{
    .bound = Bound::Idle, .compute = 1.0, .memory = 2.0, .util = 0.0, .sm_active = 0.0, .power_w = 100.0};
const Load kGemm{.bound = Bound::Compute,
                 .compute = 90.0,
                 .memory = 30.0,
                 .util = 100.0,
                 .sm_active = 95.0,
                 .power_w = 600.0};

/// GPU 0: 2 s idle at 100 W then 3 s of compute at 600 W, 100 ms samples.
auto idle_then_gemm() -> std::vector<core::SolSample> {
  std::vector<core::SolSample> out;
  for (int i = 0; i < 20; ++i) out.push_back(testing::sample(0, i * 100, 100, kIdle));
  for (int i = 20; i < 50; ++i) out.push_back(testing::sample(0, i * 100, 100, kGemm));
  return out;
}

auto build(const std::vector<core::SolSample>& samples, const std::vector<core::KernelRecord>& kernels = {})
    -> Report {
  core::DeviceInfo dev;
  dev.index = 0;
  dev.name = "test GPU";
  const std::vector<core::DeviceInfo> devices{dev};
  ReportBuilder builder(devices, kernels);
  for (const auto& s : samples) builder.add(s);
  return builder.finish(TraceFacts{.path = "t.sqlite"});
}

TEST(ReportBuilder, WholeTraceFiguresEnergyAndBoundTime) {
  const Report report = build(idle_then_gemm());
  EXPECT_EQ(report.samples, 50U);
  ASSERT_EQ(report.gpus.size(), 1U);
  const GpuReport& g = report.gpus[0];
  EXPECT_EQ(g.device.name, "test GPU");
  EXPECT_EQ(g.samples, 50U);
  EXPECT_EQ(g.start_ns, 0);
  EXPECT_EQ(g.end_ns, 5000 * kMs);
  EXPECT_EQ(g.sampled_ns, 5000 * kMs);
  EXPECT_DOUBLE_EQ(g.figures.compute_sol_pct, (2.0 * 1.0 + 3.0 * 90.0) / 5.0);
  EXPECT_EQ(g.figures.compute_pipe, core::Pipe::Tensor);
  EXPECT_DOUBLE_EQ(g.figures.memory_sol_pct, (2.0 * 2.0 + 3.0 * 30.0) / 5.0);
  EXPECT_EQ(g.figures.memory_path, core::MemPath::Dram);
  EXPECT_DOUBLE_EQ(g.figures.gpu_util_pct, 60.0);
  EXPECT_DOUBLE_EQ(g.figures.sm_active_pct, 57.0);
  // 2 s x 100 W + 3 s x 600 W = 2000 J over 5 s: 400 W.
  EXPECT_DOUBLE_EQ(g.figures.energy_j, 2000.0);
  EXPECT_DOUBLE_EQ(g.figures.mean_power_w, 400.0);
  EXPECT_EQ(g.figures.power_known_ns, 5000 * kMs);
  EXPECT_EQ(g.bound_ns[bound_slot(Bound::Idle)], 2000 * kMs);
  EXPECT_EQ(g.bound_ns[bound_slot(Bound::Compute)], 3000 * kMs);
  EXPECT_EQ(g.bound_ns[bound_slot(Bound::Memory)], 0);
  EXPECT_EQ(g.min_phase_ns, core::kNsPerS);
  ASSERT_EQ(g.phases.size(), 2U);
  EXPECT_EQ(g.phases[0].bound, Bound::Idle);
  EXPECT_EQ(g.phases[1].start_ns, 2000 * kMs);
  EXPECT_DOUBLE_EQ(g.phases[0].figures.energy_j, 200.0);
  EXPECT_DOUBLE_EQ(g.phases[1].figures.energy_j, 1800.0);
  // No attainable SOL: headroom unknown, not 0.
  EXPECT_TRUE(std::isnan(g.attainable_compute_sol_pct));
  EXPECT_TRUE(std::isnan(g.compute_headroom_pct));
  EXPECT_TRUE(std::isnan(g.memory_headroom_pct));
  EXPECT_EQ(g.kernel_calls, 0U);
}

TEST(ReportBuilder, EnergyCountsOnlyTheTimeWithKnownPower) {
  auto samples = idle_then_gemm();
  for (int i = 20; i < 30; ++i)
    samples[static_cast<std::size_t>(i)].metrics[core::index_of(core::MetricId::PowerW)] = core::kUnknown;
  const GpuReport g = build(samples).gpus.at(0);
  // 2 s x 100 W + 2 s x 600 W = 1400 J over the 4 s with power.
  EXPECT_DOUBLE_EQ(g.figures.energy_j, 1400.0);
  EXPECT_DOUBLE_EQ(g.figures.mean_power_w, 350.0);
  EXPECT_EQ(g.figures.power_known_ns, 4000 * kMs);
}

TEST(ReportBuilder, HeadroomIsAttainableMinusMeasured) {
  auto samples = idle_then_gemm();
  for (auto& s : samples) {
    s.attainable_compute_sol_pct = 95.0;
    s.attainable_memory_sol_pct = 40.0;
  }
  const GpuReport g = build(samples).gpus.at(0);
  EXPECT_DOUBLE_EQ(g.attainable_compute_sol_pct, 95.0);
  EXPECT_DOUBLE_EQ(g.compute_headroom_pct, 95.0 - 54.4);
  EXPECT_DOUBLE_EQ(g.memory_headroom_pct, 40.0 - 18.8);
}

TEST(ReportBuilder, UnknownFiguresStayUnknown) {
  std::vector<core::SolSample> samples;
  for (int i = 0; i < 10; ++i) {
    core::SolSample s;  // every figure unknown
    s.t_start_ns = i * 100 * kMs;
    s.t_end_ns = (i + 1) * 100 * kMs;
    samples.push_back(s);
  }
  const GpuReport g = build(samples).gpus.at(0);
  EXPECT_TRUE(std::isnan(g.figures.compute_sol_pct));
  EXPECT_EQ(g.figures.compute_pipe, core::Pipe::kCount);
  EXPECT_TRUE(std::isnan(g.figures.memory_sol_pct));
  EXPECT_TRUE(std::isnan(g.figures.gpu_util_pct));
  EXPECT_TRUE(std::isnan(g.figures.sm_active_pct));
  EXPECT_TRUE(std::isnan(g.figures.energy_j));
  EXPECT_TRUE(std::isnan(g.figures.mean_power_w));
  EXPECT_EQ(g.bound_ns[bound_slot(Bound::Unknown)], 1000 * kMs);
}

TEST(ReportBuilder, KernelsJoinTheSamplesAndAGpuWithOnlyKernelsIsListed) {
  std::vector<core::KernelRecord> kernels(2);
  kernels[0].device = 0;
  kernels[0].start_ns = 1500 * kMs;  // 0.5 s idle, 0.5 s compute
  kernels[0].end_ns = 2500 * kMs;
  kernels[0].name = "gemm";
  kernels[1].device = 3;
  kernels[1].start_ns = 0;
  kernels[1].end_ns = 10 * kMs;
  kernels[1].name = "lonely";
  const Report report = build(idle_then_gemm(), kernels);
  EXPECT_EQ(report.kernel_calls, 2U);
  ASSERT_EQ(report.gpus.size(), 2U);
  const GpuReport& g0 = report.gpus[0];
  ASSERT_EQ(g0.top_kernels.size(), 1U);
  EXPECT_DOUBLE_EQ(g0.top_kernels[0].compute_sol_pct, (1.0 + 90.0) / 2.0);
  EXPECT_DOUBLE_EQ(g0.top_kernels[0].time_share_pct, 100.0);
  EXPECT_EQ(g0.top_kernels[0].sampled_ns, 1000 * kMs);
  const GpuReport& g3 = report.gpus[1];
  EXPECT_EQ(g3.device.index, 3U);
  EXPECT_EQ(g3.samples, 0U);
  EXPECT_EQ(g3.kernel_calls, 1U);
  EXPECT_TRUE(std::isnan(g3.figures.compute_sol_pct));
}

}  // namespace
}  // namespace solscope::report
