// Expected figures against hand-computed values (docs/accuracy.md, "Expected values"). Each figure below is
// worked out in its comment from the device's spec row and the kernel's PTX loop; a change to a rate, a loop
// count or a formula breaks it.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "check/detail/rates.hpp"
#include "check/kernels.hpp"
#include "check_fixtures.hpp"

namespace solscope::check {
namespace {

using core::MetricId;

constexpr double kEps = 1e-3;

using testing::h100;
using testing::spec;

auto a100() -> DeviceFacts {
  return {.nvml_index = 0,
          .compute_capability = 80,
          .sm_count = 108,
          .l2_bytes = 40ULL << 20,
          .chip = "GA100",
          .name = "NVIDIA A100-SXM4-80GB",
          .max_sm_clock_mhz = 1410.0,
          .dram_peak_bytes_per_s = 2.039e12};
}

auto compute(std::uint32_t grid, std::uint32_t iterations, std::uint64_t launches, std::int64_t elapsed_ns,
             double clock_mhz) -> PhaseMeasurement {
  return {.shape = {.grid_blocks = grid, .block_threads = 1024, .iterations = iterations, .buffer_bytes = 0},
          .launches = launches,
          .gpu_elapsed_ns = elapsed_ns,
          .sm_clock_mhz = clock_mhz,
          .dram_peak_bytes_per_s = 3.35e12};
}

auto figure(const std::vector<ExpectedFigure>& figures, MetricId id) -> ExpectedFigure {
  for (const ExpectedFigure& f : figures) {
    if (f.metric == id) return f;
  }
  ADD_FAILURE() << "no figure for metric " << static_cast<int>(id);
  return {.metric = id, .expected_pct = std::numeric_limits<double>::quiet_NaN()};
}

TEST(Rates, H100FromTheSpecData) {
  // data/gpu_specs.json H100-SXM5-80GB: fp32 256, fp64 (vector) 128, bf16 4096 FLOP/clock/SM.
  auto r = per_sm_rates(h100());
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_DOUBLE_EQ(r->ffma_per_clock, 128.0);
  EXPECT_DOUBLE_EQ(r->dfma_per_clock, 64.0);
  EXPECT_DOUBLE_EQ(r->bf16_flop_per_clock, 4096.0);
  EXPECT_DOUBLE_EQ(r->lop3_per_clock, 64.0);
  EXPECT_NE(r->source.find("H100-SXM5-80GB"), std::string::npos) << r->source;
}

TEST(Rates, SkusOfOneChipNeedTheName) {
  // AD102: the RTX 4090 has half the BF16-with-FP32-accumulate rate of the L40S (512 vs 1024).
  DeviceFacts d{
      .compute_capability = 89, .sm_count = 128, .chip = "AD102", .name = "NVIDIA GeForce RTX 4090"};
  auto named = per_sm_rates(d);
  ASSERT_TRUE(named);
  EXPECT_DOUBLE_EQ(named->bf16_flop_per_clock, 512.0);
  d.name = "";
  auto by_chip = per_sm_rates(d);
  ASSERT_TRUE(by_chip);
  EXPECT_TRUE(std::isnan(by_chip->bf16_flop_per_clock));
  EXPECT_DOUBLE_EQ(by_chip->ffma_per_clock, 128.0);  // every AD102 row: fp32 256
  EXPECT_DOUBLE_EQ(by_chip->dfma_per_clock, 2.0);    // every AD102 row: fp64 4
  auto tensor = expected_figures(spec(PhaseKind::TensorMma), d, compute(128, 100, 1, 1'000'000, 2520.0));
  ASSERT_FALSE(tensor);
  EXPECT_EQ(tensor.error().code, core::ErrorCode::NotFound);
}

TEST(Rates, UnknownChipFallsBackToTheProgrammingGuideByComputeCapability) {
  // An RTX 5090 (GB202, cc 12.0) has no spec row: FFMA 128 and DFMA 2 per clock per SM from the guide.
  auto r =
      per_sm_rates({.compute_capability = 120, .sm_count = 170, .chip = "GB202", .name = "NVIDIA RTX 5090"});
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->ffma_per_clock, 128.0);
  EXPECT_DOUBLE_EQ(r->dfma_per_clock, 2.0);
  EXPECT_TRUE(std::isnan(r->bf16_flop_per_clock));
  EXPECT_NE(r->source.find("Programming Guide"), std::string::npos);
  auto none = per_sm_rates({.compute_capability = 75, .sm_count = 40, .chip = "TU104", .name = "Tesla T4"});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, core::ErrorCode::NotFound);
}

TEST(Expected, FmaOnH100) {
  // 10 launches x 132 blocks x 1024 threads x 10,000 iterations x 128 FFMA = 1.7301504e12 FFMA in 60 ms.
  // Capacity: 0.060 s x 132 SMs x 128 FFMA/clock x 1.98e9 Hz = 2.0072448e12 FFMA -> 86.1953%.
  auto f = expected_figures(spec(PhaseKind::Fma), h100(), compute(132, 10'000, 10, 60'000'000, 1980.0));
  ASSERT_TRUE(f) << f.error().describe();
  const ExpectedFigure fma = figure(*f, MetricId::FmaPipe);
  EXPECT_NEAR(fma.expected_pct, 86.1953, kEps);
  EXPECT_DOUBLE_EQ(fma.tolerance_pct, 3.0);
  EXPECT_EQ(fma.bound, Bound::Point);
  EXPECT_NEAR(figure(*f, MetricId::SmActive).expected_pct, 100.0, kEps);
  EXPECT_DOUBLE_EQ(figure(*f, MetricId::SmActive).tolerance_pct, 3.0);
  EXPECT_NEAR(figure(*f, MetricId::GpuUtil).expected_pct, 100.0, kEps);
  EXPECT_DOUBLE_EQ(figure(*f, MetricId::GpuUtil).tolerance_pct, 5.0);
  EXPECT_EQ(f->size(), 3U);  // GH100 counts FMA as one pipe: no heavy/lite figures
  // The rate and its source are named with the figure (issue 11: "with the source named").
  EXPECT_NE(fma.basis.find("; per-SM rate 128 per clock (data/gpu_specs.json H100-SXM5-80GB"),
            std::string::npos)
      << fma.basis;
}

TEST(Expected, FmaOnHalfTheSmsOfH100) {
  // The same work on 66 blocks: half of 86.1953% = 43.0976%; SM active 66 / 132 = 50%.
  auto f = expected_figures(spec(PhaseKind::FmaHalfSms), h100(), compute(66, 10'000, 10, 60'000'000, 1980.0));
  ASSERT_TRUE(f);
  EXPECT_NEAR(figure(*f, MetricId::FmaPipe).expected_pct, 43.0976, kEps);
  EXPECT_NEAR(figure(*f, MetricId::SmActive).expected_pct, 50.0, kEps);
  EXPECT_NEAR(figure(*f, MetricId::GpuUtil).expected_pct, 100.0, kEps);
}

TEST(Expected, FmaOnA100UsesItsHalfRateFmaPipe) {
  // A100: fp32 128 FLOP/clock/SM = 64 FFMA. 4 launches x 108 x 1024 x 5,000 x 128 = 2.8311552e11 FFMA in
  // 35 ms at 1410 MHz: capacity 0.035 x 108 x 64 x 1.41e9 = 3.411072e11 -> 82.9990%.
  auto f = expected_figures(spec(PhaseKind::Fma), a100(), compute(108, 5'000, 4, 35'000'000, 1410.0));
  ASSERT_TRUE(f);
  EXPECT_NEAR(figure(*f, MetricId::FmaPipe).expected_pct, 82.9990, kEps);
}

TEST(Expected, FmaOnAd102AddsTheHeavyAndLiteHalves) {
  // RTX 4090 (AD102, GA10x family): 128 FFMA/clock/SM. 1 launch x 128 x 1024 x 1,000 x 128 = 1.6777216e10
  // FFMA in 1 ms at 2520 MHz: capacity 0.001 x 128 x 128 x 2.52e9 = 4.128768e10 -> 40.6349%, on FMA and on
  // each half.
  const DeviceFacts d{
      .compute_capability = 89, .sm_count = 128, .chip = "AD102", .name = "NVIDIA GeForce RTX 4090"};
  auto f = expected_figures(spec(PhaseKind::Fma), d, compute(128, 1'000, 1, 1'000'000, 2520.0));
  ASSERT_TRUE(f);
  EXPECT_NEAR(figure(*f, MetricId::FmaPipe).expected_pct, 40.6349, kEps);
  EXPECT_NEAR(figure(*f, MetricId::FmaHeavyPipe).expected_pct, 40.6349, kEps);
  EXPECT_NEAR(figure(*f, MetricId::FmaLitePipe).expected_pct, 40.6349, kEps);
}

TEST(Expected, TensorMmaOnH100) {
  // 20 launches x 132 x 1024 threads x 1,000 iterations x 32 mma x 128 FLOP (4096 per warp mma / 32) =
  // 1.107296256e13 FLOP in 20 ms at 1755 MHz: capacity 0.020 x 132 x 4096 x 1.755e9 = 1.89775872e13
  // -> 58.3476%.
  auto f = expected_figures(spec(PhaseKind::TensorMma), h100(), compute(132, 1'000, 20, 20'000'000, 1755.0));
  ASSERT_TRUE(f);
  EXPECT_NEAR(figure(*f, MetricId::TensorPipe).expected_pct, 58.3476, kEps);
  EXPECT_DOUBLE_EQ(figure(*f, MetricId::TensorPipe).tolerance_pct, 3.0);
}

TEST(Expected, TensorWgmmaOnH100) {
  // 30 launches x 132 blocks x 256 threads x 5,000 iterations x 4 wgmma x 4096 FLOP (524,288 per warpgroup /
  // 128) = 8.30472192e13 FLOP in 100 ms at 1830 MHz: capacity 0.1 x 132 x 4096 x 1.83e9 = 9.8942976e13 ->
  // 83.9344%.
  PhaseMeasurement m = compute(132, 5'000, 30, 100'000'000, 1830.0);
  m.shape.block_threads = 256;
  auto f = expected_figures(spec(PhaseKind::TensorWgmma), h100(), m);
  ASSERT_TRUE(f);
  EXPECT_NEAR(figure(*f, MetricId::TensorPipe).expected_pct, 83.9344, kEps);
}

TEST(Expected, AluOnH100) {
  // 5 x 132 x 1024 x 4,000 x 128 LOP3 = 3.4603008e11 in 50 ms at 1980 MHz; capacity 0.05 x 132 x 64 x
  // 1.98e9 = 8.363520e11 -> 41.3737%.
  auto f = expected_figures(spec(PhaseKind::Alu), h100(), compute(132, 4'000, 5, 50'000'000, 1980.0));
  ASSERT_TRUE(f);
  EXPECT_NEAR(figure(*f, MetricId::AluPipe).expected_pct, 41.3737, kEps);
}

TEST(Expected, DfmaOnH100) {
  // 3 x 132 x 1024 x 8,000 x 64 DFMA = 2.07618048e11 in 25 ms at 1980 MHz; capacity 0.025 x 132 x 64 x 1.98e9
  // = 4.181760e11 -> 49.6485%.
  auto f = expected_figures(spec(PhaseKind::Fp64), h100(), compute(132, 8'000, 3, 25'000'000, 1980.0));
  ASSERT_TRUE(f);
  EXPECT_NEAR(figure(*f, MetricId::Fp64Pipe).expected_pct, 49.6485, kEps);
}

TEST(Expected, DramCopyOnH100) {
  // 50 launches x 2 passes x 33,554,432 words (256 MiB) x 16 bytes (read + write) = 5.36870912e10 bytes in
  // 20 ms against 3.35e12 B/s: 6.7e10 -> 80.1300%.
  PhaseMeasurement m{
      .shape = {.grid_blocks = 528, .block_threads = 512, .iterations = 2, .buffer_bytes = 256ULL << 20},
      .launches = 50,
      .gpu_elapsed_ns = 20'000'000,
      .sm_clock_mhz = 1980.0,
      .dram_peak_bytes_per_s = 3.35e12};
  auto f = expected_figures(spec(PhaseKind::DramCopy), h100(), m);
  ASSERT_TRUE(f);
  const ExpectedFigure dram = figure(*f, MetricId::DramThroughput);
  EXPECT_NEAR(dram.expected_pct, 80.1300, kEps);
  EXPECT_DOUBLE_EQ(dram.tolerance_pct, 5.0);
  EXPECT_NEAR(figure(*f, MetricId::SmActive).expected_pct, 100.0, kEps);
  m.dram_peak_bytes_per_s = 0.0;
  auto unknown = expected_figures(spec(PhaseKind::DramCopy), h100(), m);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, core::ErrorCode::NotFound);
}

TEST(Expected, L2CopyKeepsDramNearZero) {
  PhaseMeasurement m{
      .shape = {.grid_blocks = 528, .block_threads = 512, .iterations = 40, .buffer_bytes = 6ULL << 20},
      .launches = 100,
      .gpu_elapsed_ns = 20'000'000,
      .sm_clock_mhz = 1980.0,
      .dram_peak_bytes_per_s = 3.35e12};
  auto f = expected_figures(spec(PhaseKind::L2Copy), h100(), m);
  ASSERT_TRUE(f);
  const ExpectedFigure dram = figure(*f, MetricId::DramThroughput);
  EXPECT_DOUBLE_EQ(dram.expected_pct, 0.0);
  EXPECT_DOUBLE_EQ(dram.tolerance_pct, 5.0);
  EXPECT_TRUE(passes(dram, 4.9));
  EXPECT_FALSE(passes(dram, 5.1));
}

TEST(Expected, LaunchBoundIsABoundNotAPoint) {
  // One 32-thread block per launch: at most 1 of 132 SMs active, 0.7576%, plus 3 points.
  PhaseMeasurement m{.shape = {.grid_blocks = 1, .block_threads = 32, .iterations = 1, .buffer_bytes = 0},
                     .launches = 200'000,
                     .gpu_elapsed_ns = 2'000'000'000,
                     .sm_clock_mhz = 1980.0,
                     .dram_peak_bytes_per_s = 3.35e12};
  auto f = expected_figures(spec(PhaseKind::LaunchBound), h100(), m);
  ASSERT_TRUE(f);
  const ExpectedFigure sm = figure(*f, MetricId::SmActive);
  EXPECT_EQ(sm.bound, Bound::AtMost);
  EXPECT_NEAR(sm.expected_pct, 0.7576, kEps);
  EXPECT_TRUE(passes(sm, 0.0));
  EXPECT_TRUE(passes(sm, 3.7));
  EXPECT_FALSE(passes(sm, 3.8));
  const ExpectedFigure util = figure(*f, MetricId::GpuUtil);
  EXPECT_EQ(util.bound, Bound::AtLeast);
  EXPECT_TRUE(passes(util, 97.0));
  EXPECT_FALSE(passes(util, 49.0));
}

TEST(Expected, IdleNeedsNoLaunch) {
  auto f = expected_figures(idle_spec(), h100(), {});
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(figure(*f, MetricId::SmActive).expected_pct, 0.0);
  EXPECT_DOUBLE_EQ(figure(*f, MetricId::GpuUtil).tolerance_pct, 5.0);
  EXPECT_DOUBLE_EQ(figure(*f, MetricId::DramThroughput).tolerance_pct, 5.0);
  EXPECT_DOUBLE_EQ(figure(*f, MetricId::TensorPipe).tolerance_pct, 3.0);
}

TEST(Expected, BadMeasurementsAreErrors) {
  const KernelSpec& fma = spec(PhaseKind::Fma);
  for (const PhaseMeasurement& m : {compute(132, 10, 0, 1'000'000, 1980.0), compute(132, 10, 1, 0, 1980.0),
                                    compute(132, 10, 1, 1'000'000, 0.0)}) {
    auto f = expected_figures(fma, h100(), m);
    ASSERT_FALSE(f);
    EXPECT_EQ(f.error().code, core::ErrorCode::InvalidArgument);
  }
}

TEST(Passes, PointBoundsAndUnknown) {
  const ExpectedFigure point{.metric = MetricId::FmaPipe, .expected_pct = 90.0, .tolerance_pct = 3.0};
  EXPECT_TRUE(passes(point, 87.0));
  EXPECT_TRUE(passes(point, 93.0));
  EXPECT_FALSE(passes(point, 86.9));
  EXPECT_FALSE(passes(point, 93.1));
  EXPECT_FALSE(passes(point, std::numeric_limits<double>::quiet_NaN()));
}

}  // namespace
}  // namespace solscope::check
