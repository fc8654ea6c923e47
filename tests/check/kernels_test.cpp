// The kernel table, where each kernel runs, and the launch shapes (docs/accuracy.md, "The phases").
#include <gtest/gtest.h>

#include <string>

#include "check/kernels.hpp"
#include "check_fixtures.hpp"

namespace solscope::check {
namespace {

constexpr std::int64_t kTenMs = 10'000'000;

using testing::h100;
using testing::spec;

TEST(Kernels, TableInPhaseOrder) {
  const auto specs = kernel_specs();
  ASSERT_EQ(specs.size(), 9U);
  const PhaseKind order[] = {PhaseKind::Fma,    PhaseKind::TensorMma,   PhaseKind::TensorWgmma,
                             PhaseKind::Alu,    PhaseKind::Fp64,        PhaseKind::DramCopy,
                             PhaseKind::L2Copy, PhaseKind::LaunchBound, PhaseKind::FmaHalfSms};
  for (std::size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(specs[i].phase, order[i]) << i;
    EXPECT_FALSE(specs[i].ptx.empty()) << specs[i].name;
  }
  EXPECT_EQ(spec(PhaseKind::FmaHalfSms).entry, spec(PhaseKind::Fma).entry);
  EXPECT_EQ(spec(PhaseKind::L2Copy).entry, spec(PhaseKind::DramCopy).entry);
  EXPECT_EQ(idle_spec().phase, PhaseKind::Idle);
  EXPECT_TRUE(idle_spec().ptx.empty());
}

TEST(Kernels, Fp64OnlyWhereThePipeIsFast) {
  EXPECT_TRUE(kernel_runs_on(spec(PhaseKind::Fp64), h100()));
  EXPECT_TRUE(
      kernel_runs_on(spec(PhaseKind::Fp64), {.compute_capability = 80, .sm_count = 108, .chip = "GA100"}));
  const DeviceFacts rtx4090{
      .compute_capability = 89, .sm_count = 128, .chip = "AD102", .name = "NVIDIA GeForce RTX 4090"};
  EXPECT_FALSE(kernel_runs_on(spec(PhaseKind::Fp64), rtx4090));  // DFMA 2 vs FFMA 128 per clock
  EXPECT_TRUE(kernel_runs_on(spec(PhaseKind::Fma), rtx4090));
  const DeviceFacts turing{.compute_capability = 75, .sm_count = 40, .chip = "TU104"};
  for (const KernelSpec& k : kernel_specs()) EXPECT_FALSE(kernel_runs_on(k, turing)) << k.name;
}

TEST(Kernels, WgmmaOnlyOnHopper) {
  const KernelSpec& wgmma = spec(PhaseKind::TensorWgmma);
  EXPECT_TRUE(kernel_runs_on(wgmma, h100()));
  EXPECT_FALSE(kernel_runs_on(wgmma, {.compute_capability = 80, .sm_count = 108, .chip = "GA100"}));
  EXPECT_FALSE(kernel_runs_on(wgmma, {.compute_capability = 100, .sm_count = 148, .chip = "GB100"}));
  EXPECT_NE(wgmma.ptx.find(".target sm_90a"), std::string_view::npos);
  // Two warpgroups per block, one block per SM; one iteration: 256 x 4 x 4096 FLOP / 4096 per clock = 1024
  // clocks -> 19,336 iterations in 10 ms at 1980 MHz, as for FMA.
  const LaunchShape shape = launch_shape(wgmma, h100(), kTenMs);
  EXPECT_EQ(shape.grid_blocks, 132U);
  EXPECT_EQ(shape.block_threads, 256U);
  EXPECT_EQ(shape.iterations, 19'336U);
}

TEST(Kernels, ComputeShapesFillEverySmOnceFor10Ms) {
  // FMA on H100: one iteration of a 1024-thread block is 1024 x 128 FFMA / 128 per clock = 1024 clocks;
  // 10 ms at 1980 MHz = 19,800,000 clocks -> 19,336 iterations (19,335.94 rounded).
  const LaunchShape fma = launch_shape(spec(PhaseKind::Fma), h100(), kTenMs);
  EXPECT_EQ(fma.grid_blocks, 132U);
  EXPECT_EQ(fma.block_threads, 1024U);
  EXPECT_EQ(fma.iterations, 19'336U);
  EXPECT_EQ(fma.buffer_bytes, 0U);
  EXPECT_EQ(launch_shape(spec(PhaseKind::FmaHalfSms), h100(), kTenMs).grid_blocks, 66U);
  // mma: 1024 x 32 x 128 FLOP / 4096 per clock = 1024 clocks; DFMA: 1024 x 64 / 64 = 1024 clocks.
  EXPECT_EQ(launch_shape(spec(PhaseKind::TensorMma), h100(), kTenMs).iterations, 19'336U);
  EXPECT_EQ(launch_shape(spec(PhaseKind::Fp64), h100(), kTenMs).iterations, 19'336U);
  // ALU: 1024 x 128 / 64 per clock = 2048 clocks -> 9,667.97 -> 9,668.
  EXPECT_EQ(launch_shape(spec(PhaseKind::Alu), h100(), kTenMs).iterations, 9'668U);
  // A100 FMA: 64 FFMA per clock -> 2048 clocks per iteration; 10 ms at 1410 MHz -> 6,884.77 -> 6,885.
  const DeviceFacts a100{.compute_capability = 80,
                         .sm_count = 108,
                         .chip = "GA100",
                         .name = "NVIDIA A100-SXM4-80GB",
                         .max_sm_clock_mhz = 1410.0};
  EXPECT_EQ(launch_shape(spec(PhaseKind::Fma), a100, kTenMs).iterations, 6'885U);
  EXPECT_EQ(launch_shape(spec(PhaseKind::Fma), h100(), 1).iterations, 1U);  // never 0
}

TEST(Kernels, CopyShapes) {
  // H100 (cc 9.0, 2048 threads per SM): 4 blocks of 512 per SM, grid 528. One unrolled step = 4 x 528 x 512
  // words x 8 bytes = 8,650,752 bytes. DRAM: max(4 x 50 MiB, 256 MiB) = 268,435,456 -> 32 whole steps =
  // 276,824,064 bytes; a pass moves 2 x that at 3.35e12 B/s in 165.27 us -> 60.51 -> 61 passes per 10 ms.
  const LaunchShape dram = launch_shape(spec(PhaseKind::DramCopy), h100(), kTenMs);
  EXPECT_EQ(dram.grid_blocks, 528U);
  EXPECT_EQ(dram.block_threads, 512U);
  EXPECT_EQ(dram.buffer_bytes, 276'824'064U);
  EXPECT_EQ(dram.iterations, 61U);
  // L2: 50 MiB / 8 = 6,553,600 -> 3 whole words per thread (528 x 512 x 8 = 2,162,688) = 6,488,064 bytes.
  const LaunchShape l2 = launch_shape(spec(PhaseKind::L2Copy), h100(), kTenMs);
  EXPECT_EQ(l2.buffer_bytes, 6'488'064U);
  EXPECT_GT(l2.iterations, 1U);
  // A10 (cc 8.6, 1536 threads per SM, 6 MiB L2): 3 blocks per SM, grid 216; one word per thread = 884,736
  // bytes > 6 MiB / 8, so one: both buffers still fit in L2 with room to spare.
  const DeviceFacts a10{.compute_capability = 86, .sm_count = 72, .l2_bytes = 6ULL << 20, .chip = "GA102"};
  const LaunchShape small = launch_shape(spec(PhaseKind::L2Copy), a10, kTenMs);
  EXPECT_EQ(small.grid_blocks, 216U);
  EXPECT_EQ(small.buffer_bytes, 884'736U);
  EXPECT_LT(2 * small.buffer_bytes, a10.l2_bytes);
}

TEST(Kernels, LaunchBoundIsOneTinyBlock) {
  const LaunchShape tiny = launch_shape(spec(PhaseKind::LaunchBound), h100(), kTenMs);
  EXPECT_EQ(tiny.grid_blocks, 1U);
  EXPECT_EQ(tiny.block_threads, 32U);
  EXPECT_EQ(tiny.iterations, 1U);
}

}  // namespace
}  // namespace solscope::check
