#include "ceiling/detail/efficiency.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace solscope::ceiling {
namespace {

using testing::builtin_db;
using testing::builtin_gpu;

auto hopper() -> const ArchEfficiency& {
  return builtin_db().arch_of(builtin_gpu("H100"));
}

TEST(EfficiencyTest, large_gemm_wave_quantization_by_hand) {
  // 8192 x 6144 x 4096 on 132 SMs with 128 x 128 tiles: 64 x 48 = 3072 tiles, 24 waves, 3072 / 3168.
  const GemmTiling t = gemm_tiling(GemmShape{8192, 6144, 4096, 1}, hopper(), 132);
  EXPECT_EQ(t.token_tile, 128);
  EXPECT_EQ(t.feature_tile, 128);
  EXPECT_DOUBLE_EQ(t.tiles, 3072);
  EXPECT_DOUBLE_EQ(t.waves, 24);
  EXPECT_DOUBLE_EQ(t.wave_efficiency, 3072.0 / 3168.0);
  EXPECT_DOUBLE_EQ(t.split_k, 1);
  EXPECT_DOUBLE_EQ(t.padded_flops, 2.0 * 8192 * 6144 * 4096);
}

TEST(EfficiencyTest, small_token_counts_pad_to_the_smallest_tile) {
  // Decode at batch 1 on Hopper: wgmma's M is 64, so one token is padded to a 64-row tile and the pipe
  // does 64x the useful work (docs/design/ceiling-model.md 2.7).
  const GemmTiling t = gemm_tiling(GemmShape{1, 4096, 4096, 1}, hopper(), 132);
  EXPECT_EQ(t.token_tile, 64);
  EXPECT_DOUBLE_EQ(t.tiles, 32);
  EXPECT_DOUBLE_EQ(t.split_k, 4);  // floor(132 / 32) slices of 1024 >= 256
  EXPECT_DOUBLE_EQ(t.waves, 1);
  EXPECT_DOUBLE_EQ(t.wave_efficiency, 128.0 / 132.0);
  EXPECT_DOUBLE_EQ(t.padded_flops, 64.0 * 2 * 4096 * 4096);
  // Ampere's mma.sync m16n8k16 pads the same token to 16 rows only.
  const ArchEfficiency& ampere = builtin_db().arch_of(builtin_gpu("A100"));
  EXPECT_EQ(gemm_tiling(GemmShape{1, 4096, 4096, 1}, ampere, 108).token_tile, 16);
  // 200 tokens take two 128-row tiles (256 rows).
  const GemmTiling t200 = gemm_tiling(GemmShape{200, 128, 64, 1}, hopper(), 132);
  EXPECT_EQ(t200.token_tile, 128);
  EXPECT_DOUBLE_EQ(t200.padded_flops, 256.0 * 128 * 2 * 64);
  // A short k limits the split: k = 512 allows two slices of 256.
  EXPECT_DOUBLE_EQ(gemm_tiling(GemmShape{32, 128, 512, 1}, hopper(), 132).split_k, 2);
  // Grouped GEMM with an expected 2.5 experts: tiles scale with the groups.
  EXPECT_DOUBLE_EQ(gemm_tiling(GemmShape{3, 256, 64, 2.5}, hopper(), 132).tiles, 5.0);
  EXPECT_DOUBLE_EQ(gemm_tiling(GemmShape{0, 256, 64, 1}, hopper(), 132).padded_flops, 0.0);
}

TEST(EfficiencyTest, memory_time_uses_effective_bandwidth) {
  const GpuSpec& h100 = builtin_gpu("H100");
  // B_eff = 3350 GB/s x 0.913 = 3.06 TB/s (docs/design/ceiling-model.md 2.5 item 3).
  EXPECT_NEAR(memory_time_s(3.05855e12, h100), 1.0, 1e-9);
  EXPECT_NEAR(memory_time_s(1.73e9, builtin_gpu("A100-SXM4-80GB")), 1e-3, 1e-6);
}

TEST(EfficiencyTest, all_reduce_follows_the_ring_model) {
  const GpuSpec& h100 = builtin_gpu("H100");
  const CollectiveModel& model = builtin_db().collective;
  // 8 us + 2 x 7/8 x 1 MB / (900/2 GB/s x 0.65).
  EXPECT_NEAR(all_reduce_time_s(1e6, 8, h100, model), 8e-6 + 1.75e6 / 292.5e9, 1e-12);
  EXPECT_EQ(all_reduce_time_s(1e6, 1, h100, model), 0.0);
  // No NVLink on L40S: the PCIe Gen4 x16 host link (64 GB/s both ways) carries it.
  EXPECT_NEAR(all_reduce_bus_bytes_per_s(builtin_gpu("L40S"), model), 32e9 * 0.65, 1.0);
}

}  // namespace
}  // namespace solscope::ceiling
