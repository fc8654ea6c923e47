// GEMM kernel families (docs/design/ceiling-model.md 2.7, "Kernel families"): GEMV at one token, swap-AB at
// small M, tokens on M above, MoE experts padded per expert from the binomial routing distribution, and
// weight-only (Marlin) kernels on m16 tiles on every generation.
#include "ceiling/detail/gemm_family.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace solscope::ceiling {
namespace {

using testing::builtin_db;
using testing::builtin_gpu;
using testing::evaluate_cli;
using testing::find_op;
using testing::fixture_arch;

auto arch_of(const std::string& gpu) -> const ArchEfficiency& {
  return builtin_db().arch_of(builtin_gpu(gpu));
}

constexpr std::array<const char*, 5> kDenseGemms{"qkv_proj", "o_proj", "gate_up_proj", "down_proj",
                                                 "lm_head"};

TEST(GemmFamilyTest, expected_tiles_per_expert_by_hand) {
  // X ~ Binomial(3, 0.5): pmf 1/8, 3/8, 3/8, 1/8; ceil(X / 2) = 0, 1, 1, 2: 3/8 + 3/8 + 2/8 = 1.
  EXPECT_NEAR(expected_tiles_per_expert(3, 0.5, 2), 1.0, 1e-12);
  // One-token tiles count the tokens: E[X] = n p.
  EXPECT_NEAR(expected_tiles_per_expert(2000, 0.5, 1), 1000.0, 1e-6);
  // Qwen3-30B-A3B (E = 128, k = 8) at 8 tokens, 16-row tiles: every expert that gets a token gets one tile,
  // P(X >= 1) = 1 - (15/16)^8 = 0.403281.
  EXPECT_NEAR(expected_tiles_per_expert(8, 8.0 / 128, 16), 1.0 - std::pow(15.0 / 16, 8), 1e-12);
  EXPECT_NEAR(expected_tiles_per_expert(8, 8.0 / 128, 16), 0.403281, 1e-6);
  // 1024 tokens: 64 per expert on average, which the mean rule pads to exactly one 64-row tile; the
  // distribution sends half the experts past 64 tokens, so 1.4668 tiles (exact sum of the pmf).
  EXPECT_NEAR(expected_tiles_per_expert(1024, 8.0 / 128, 64), 1.466804, 1e-6);
  EXPECT_DOUBLE_EQ(expected_tiles_per_expert(0, 0.5, 16), 0.0);
  EXPECT_DOUBLE_EQ(expected_tiles_per_expert(8, 0.0, 16), 0.0);
  EXPECT_DOUBLE_EQ(expected_tiles_per_expert(8, 1.0, 16), 1.0);
}

/// A synthetic one-architecture spec file whose architecture row ends with `arch_fields`.
auto spec_with_arch(const std::string& arch_fields) -> std::string {
  return R"({"architectures": [{"id": "a", "matmul_efficiency": {"default": 0.8}, "attention_efficiency": 0.5,
              "gemm_token_tiles": [16, 128], "source": "synthetic")" +
         arch_fields + R"(}],
             "gpus": [{"id": "X1", "arch": "a", "sm_count": 10, "max_sm_clock_mhz": 1000,
                       "tensor_spec_clock_mhz": 1000, "flop_per_clock_per_sm": {"bf16": 1024},
                       "memory_gb": 16, "memory_bandwidth_gb_per_s": 500, "link_bidir_gb_per_s": 0,
                       "host_link_bidir_gb_per_s": 64, "memory_efficiency": 0.8, "kernel_overhead_us": 5,
                       "source": "synthetic"}]})";
}

TEST(GemmFamilyTest, gemm_kernels_object_parses_and_is_optional) {
  auto none = parse_gpu_database(spec_with_arch(""), "t.json");
  ASSERT_TRUE(none.has_value()) << none.error().describe();
  const GemmKernels& defaults = none->architectures[0].gemm_kernels;
  EXPECT_EQ(defaults.gemv_max_tokens, 0);
  EXPECT_EQ(defaults.swap_ab_max_tokens, 0);
  EXPECT_TRUE(defaults.moe_token_tiles.empty());
  EXPECT_EQ(defaults.weight_only_token_tile, 0);

  auto full = parse_gpu_database(
      spec_with_arch(
          R"(, "gemm_kernels": {"gemv_max_tokens": 1, "swap_ab_max_tokens": 64, "swap_ab_token_tile": 8,
                          "swap_ab_feature_tile": 64, "moe_token_tiles": [16, 64], "weight_only_token_tile": 16})"),
      "t.json");
  ASSERT_TRUE(full.has_value()) << full.error().describe();
  const GemmKernels& g = full->architectures[0].gemm_kernels;
  EXPECT_EQ(g.gemv_max_tokens, 1);
  EXPECT_EQ(g.swap_ab_max_tokens, 64);
  EXPECT_EQ(g.swap_ab_feature_tile, 64);
  EXPECT_EQ(g.moe_token_tiles, (std::vector<int>{16, 64}));
  EXPECT_EQ(g.weight_only_token_tile, 16);

  auto bad = parse_gpu_database(spec_with_arch(R"(, "gemm_kernels": {"swap_ab_token_tile": 0})"), "t.json");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("swap_ab_token_tile"), std::string::npos) << bad.error().message;
  auto descending =
      parse_gpu_database(spec_with_arch(R"(, "gemm_kernels": {"moe_token_tiles": [64, 16]})"), "t.json");
  ASSERT_FALSE(descending.has_value());
  EXPECT_NE(descending.error().message.find("ascending"), std::string::npos);
}

TEST(GemmFamilyTest, family_choice_on_hopper) {
  const GemmKernels& g = arch_of("H100").gemm_kernels;
  const ExpertRouting none;
  EXPECT_EQ(choose_gemm_family(GemmShape{1, 4096, 4096, 1}, none, g, false), GemmFamily::Gemv);
  EXPECT_EQ(choose_gemm_family(GemmShape{2, 4096, 4096, 1}, none, g, false), GemmFamily::SwapAb);
  EXPECT_EQ(choose_gemm_family(GemmShape{64, 4096, 4096, 1}, none, g, false), GemmFamily::SwapAb);
  EXPECT_EQ(choose_gemm_family(GemmShape{65, 4096, 4096, 1}, none, g, false), GemmFamily::TokensOnM);
  // Batched GEMMs (MLA's per-head products) keep their tokens on M.
  EXPECT_EQ(choose_gemm_family(GemmShape{1, 512, 128, 16}, none, g, false), GemmFamily::TokensOnM);
  // A dequantising GEMM runs Marlin even at one token.
  EXPECT_EQ(choose_gemm_family(GemmShape{1, 4096, 4096, 1}, none, g, true), GemmFamily::WeightOnly);
  const ExpertRouting routed{8, 8.0 / 128, 128, 128};
  EXPECT_EQ(choose_gemm_family(GemmShape{1.24, 1536, 2048, 51.6}, routed, g, false), GemmFamily::MoeGrouped);
  // A spec file without "gemm_kernels" keeps the single tokens-on-M rule.
  const GemmKernels old;
  EXPECT_EQ(choose_gemm_family(GemmShape{1, 4096, 4096, 1}, none, old, false), GemmFamily::TokensOnM);
  EXPECT_EQ(choose_gemm_family(GemmShape{1, 4096, 4096, 1}, none, old, true), GemmFamily::TokensOnM);
  EXPECT_EQ(choose_gemm_family(GemmShape{1.24, 1536, 2048, 51.6}, routed, old, false), GemmFamily::TokensOnM);
}

TEST(GemmFamilyTest, swap_ab_pads_tokens_to_granularity_8) {
  const ArchEfficiency& hopper = arch_of("H100");
  const ExpertRouting none;
  for (double m : {8.0, 16.0}) {
    const GemmTiling t = family_tiling(GemmShape{m, 4096, 4096, 1}, none, hopper, 132, false);
    EXPECT_EQ(t.family, GemmFamily::SwapAb);
    EXPECT_DOUBLE_EQ(t.padded_flops, 2.0 * m * 4096 * 4096) << m;  // 1x: no padding
  }
  const GemmTiling t12 = family_tiling(GemmShape{12, 4096, 4096, 1}, none, hopper, 132, false);
  EXPECT_EQ(t12.token_tile, 16);
  EXPECT_DOUBLE_EQ(t12.padded_flops, 2.0 * 16 * 4096 * 4096);
  // Features sit on wgmma's M = 64: 100 features pad to 128.
  EXPECT_DOUBLE_EQ(family_tiling(GemmShape{8, 100, 256, 1}, none, hopper, 132, false).padded_flops,
                   2.0 * 8 * 128 * 256);
}

TEST(GemmFamilyTest, gemv_does_no_tensor_work) {
  const GemmTiling t =
      family_tiling(GemmShape{1, 6144, 4096, 1}, ExpertRouting{}, arch_of("H100"), 132, false);
  EXPECT_EQ(t.family, GemmFamily::Gemv);
  EXPECT_DOUBLE_EQ(t.padded_flops, 0.0);
  EXPECT_DOUBLE_EQ(t.fma_flops, 2.0 * 6144 * 4096);
}

TEST(GemmFamilyTest, llama_decode_activity_grows_with_batch) {
  // Llama-3.1-8B decode at context 1024. Batch 1: every dense GEMM is a GEMV (no tensor work); batch 8:
  // swap-AB, whose N (6144, 4096, 28672, 128256) are multiples of the feature tile, with the tokens padded to
  // the architecture's token tile (8 on H100: 1x; cuBLAS's 64 on A100: 8x); batch 64: 1x on both. Activity
  // then rises with the batch, which the old rule (pad to 64 rows on H100: 14.8%, 14.1%, 10.5%) inverted.
  for (const char* gpu : {"H100", "A100-SXM4-80GB"}) {
    const ModelArch llama = fixture_arch("llama-3.1-8b");
    const double b8_padding = arch_of(gpu).gemm_kernels.swap_ab_token_tile / 8.0;
    const Ceiling b1 = evaluate_cli(gpu, llama, Phase::Decode, 1, 1024, 0);
    const Ceiling b8 = evaluate_cli(gpu, llama, Phase::Decode, 8, 1024, 0);
    const Ceiling b64 = evaluate_cli(gpu, llama, Phase::Decode, 64, 1024, 0);
    double gemm_padding_s = 0;
    for (const char* name : kDenseGemms) {
      ASSERT_NE(find_op(b1, name), nullptr) << name;
      const OpCost& g8 = *find_op(b8, name);
      EXPECT_DOUBLE_EQ(find_op(b1, name)->padded_flops, 0.0) << gpu << " " << name;
      EXPECT_DOUBLE_EQ(g8.padded_flops, b8_padding * g8.flops) << gpu << " " << name;
      EXPECT_DOUBLE_EQ(find_op(b64, name)->padded_flops, find_op(b64, name)->flops) << gpu << " " << name;
      EXPECT_EQ(find_op(b1, name)->limiter, Limiter::Memory) << gpu << " " << name;
      EXPECT_EQ(find_op(b1, name)->kernel_family, "gemv") << gpu << " " << name;
      EXPECT_EQ(g8.kernel_family, "swap_ab") << gpu << " " << name;
      gemm_padding_s += (g8.padded_flops - g8.flops) / b8.peak_flops_per_s;
    }
    EXPECT_GE(b8.tensor_activity_pct, b1.tensor_activity_pct) << gpu;
    EXPECT_GE(b64.tensor_activity_pct, b8.tensor_activity_pct) << gpu;
    // Activity exceeds the useful figure at batch 8 by the GEMMs' token padding and the decode attention's
    // padded query rows (docs/design/ceiling-model.md 2.7 "Kernel families"; attention_test.cpp).
    const OpCost* attention = find_op(b8, "attention");
    ASSERT_NE(attention, nullptr);
    const double attention_padding_s = (attention->padded_flops - attention->flops) / b8.peak_flops_per_s;
    EXPECT_NEAR(b8.busy_s - attention_padding_s - gemm_padding_s, b8.useful_busy_s, 1e-12) << gpu;
  }
}

TEST(GemmFamilyTest, moe_decode_pads_each_expert_from_the_binomial) {
  // Qwen3-30B-A3B on H100, decode batch 8: 8 tokens <= 128 experts, so fused_moe's 16-row tile. Each of the
  // 128 experts gets Binomial(8, 1/16) tokens and one tile when it gets any: 128 x 0.403281 tiles of 16 rows,
  // N = 2 x 768 = 12 feature tiles of 128, K = 2048, 48 layers.
  const Ceiling c = evaluate_cli("H100", fixture_arch("qwen3-30b-a3b"), Phase::Decode, 8, 1024, 0);
  const OpCost* gate_up = find_op(c, "experts_gate_up");
  ASSERT_NE(gate_up, nullptr);
  EXPECT_EQ(gate_up->kernel_family, "moe_grouped");
  const double tiles = 128.0 * (1.0 - std::pow(15.0 / 16, 8));
  EXPECT_NEAR(gate_up->padded_flops, 48.0 * tiles * 16 * 1536 * 2 * 2048, 1e-6 * gate_up->padded_flops);
  // Useful FLOPs stay 2 x routed tokens x N x K: 8 tokens x 8 experts.
  EXPECT_NEAR(gate_up->flops, 48.0 * 2 * 64 * 1536 * 2048, 1e-6 * gate_up->flops);
}

TEST(GemmFamilyTest, w4a16_layers_pad_to_marlin_m16_on_hopper) {
  // Qwen3.5-9B W4A16 on H100, decode batch 8: the dequantising (Marlin) layers run mma.sync m16 tiles, so
  // 8 tokens pad to 16 rows (2x), not to wgmma's 64 (8x) as before.
  const Ceiling c = evaluate_cli("H100", fixture_arch("qwen3.5-9b-w4a16"), Phase::Decode, 8, 1024, 0);
  const OpCost* down = find_op(c, "down_proj");
  ASSERT_NE(down, nullptr);
  EXPECT_GT(down->dequant_s, 0.0);
  EXPECT_EQ(down->kernel_family, "weight_only");
  EXPECT_DOUBLE_EQ(down->padded_flops, 2.0 * down->flops);
}

}  // namespace
}  // namespace solscope::ceiling
