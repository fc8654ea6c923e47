// Useful Compute SOL (MFU) against tensor-pipe activity: MMA tile padding of the GEMM kernel families and the
// dequantisation work of weight-only kernels (docs/design/ceiling-model.md 2.7).
#include <gtest/gtest.h>

#include "ceiling/ceiling.hpp"
#include "ceiling/detail/efficiency.hpp"
#include "test_support.hpp"

namespace solscope::ceiling {
namespace {

using testing::builtin_db;
using testing::builtin_gpu;
using testing::evaluate_cli;
using testing::find_op;
using testing::fixture_arch;

struct GemmSums {
  double flops = 0;
  double padded = 0;
  double other_busy_flops = 0;    // attention's tensor work, decode rows padded (2.7 "Kernel families")
  double other_useful_flops = 0;  // attention's useful FLOPs
};

auto sums(const Ceiling& c) -> GemmSums {
  GemmSums s;
  for (const OpCost& op : c.ops) {
    if (op.kind == OpKind::Gemm) {
      s.flops += op.flops;
      s.padded += op.padded_flops;
    } else {
      s.other_busy_flops += op.padded_flops;
      s.other_useful_flops += op.flops;
    }
  }
  return s;
}

TEST(ActivityTest, h100_decode_batch_8_runs_swap_ab_without_padding) {
  // Llama-3.1-8B: the old rule padded 8 tokens to wgmma's 64 rows (8x the useful FLOPs). The engines'
  // libraries run swap-AB at small M (tokens on the MMA's N, granularity 8; docs/design/ceiling-model.md 2.7
  // "Kernel families"), and every N (6144, 4096, 28672, 128256) is a multiple of the 64-row feature tile: 1x.
  const Ceiling c = evaluate_cli("H100", fixture_arch("llama-3.1-8b"), Phase::Decode, 8, 1024, 0);
  for (const char* name : {"qkv_proj", "o_proj", "gate_up_proj", "down_proj", "lm_head"}) {
    const OpCost* op = find_op(c, name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_DOUBLE_EQ(op->padded_flops, op->flops) << name;
  }
  const GemmSums s = sums(c);
  const double peak = 132.0 * 4096 * 1830e6;
  EXPECT_NEAR(c.busy_s, (s.flops + s.other_busy_flops) / peak, 1e-15);
  // Useful work counts attention unpadded; the decode attention's busy work is padded (attention_test.cpp).
  EXPECT_NEAR(c.useful_busy_s, (s.flops + s.other_useful_flops) / peak, 1e-15);
  EXPECT_DOUBLE_EQ(c.useful_compute_sol_pct, c.mfu_pct);
  EXPECT_DOUBLE_EQ(c.compute_sol_pct, c.tensor_activity_pct);
}

TEST(ActivityTest, a100_decode_batch_8_pads_tokens_to_cublas_64_wide_tile) {
  // cuBLAS's A100 decode kernel (ampere_bf16_s16816gemm_bf16_64x64_..._tn) holds 64 tokens per CTA, the
  // smallest token tile on sm_80 (docs/design/ceiling-model.md 2.7 "Kernel families"): 8 tokens do 8x their
  // useful FLOPs. The counters read this padding: vLLM decode on A100 measured above a 1x model (7.1).
  const Ceiling c = evaluate_cli("A100", fixture_arch("llama-3.1-8b"), Phase::Decode, 8, 1024, 0);
  const OpCost* qkv = find_op(c, "qkv_proj");
  ASSERT_NE(qkv, nullptr);
  EXPECT_EQ(qkv->kernel_family, "swap_ab");
  EXPECT_DOUBLE_EQ(qkv->padded_flops, 8.0 * qkv->flops);
}

TEST(ActivityTest, activity_equals_useful_at_large_m) {
  // A training step of 8192 tokens: every GEMM (and its two backward products) tiles without padding, the
  // LM head scores all 8192 positions, and attention runs at the same BF16 rate: the two figures agree.
  const Ceiling c = evaluate_cli("H100", fixture_arch("llama-3.1-8b"), Phase::Train, 1, 0, 8192);
  const GemmSums s = sums(c);
  EXPECT_DOUBLE_EQ(s.padded, s.flops);
  EXPECT_NEAR(c.tensor_activity_pct / c.useful_compute_sol_pct, 1.0, 1e-12);
  const Ceiling prefill = evaluate_cli("H100", fixture_arch("llama-3.1-8b"), Phase::Prefill, 1, 0, 8192);
  EXPECT_DOUBLE_EQ(find_op(prefill, "qkv_proj")->padded_flops, find_op(prefill, "qkv_proj")->flops);
}

TEST(ActivityTest, mix_carries_both_figures) {
  const ModelArch llama = fixture_arch("llama-3.1-8b");
  const Ceiling decode = evaluate_cli("H100", llama, Phase::Decode, 8, 1024, 0);
  const Ceiling prefill = evaluate_cli("H100", llama, Phase::Prefill, 1, 0, 2048);
  const std::array<WeightedStep, 2> steps{WeightedStep{&decode, 3}, WeightedStep{&prefill, 1}};
  auto mix = combine_steps(steps);
  ASSERT_TRUE(mix.has_value());
  const double time = 3 * decode.step_time_s + prefill.step_time_s;
  EXPECT_NEAR(mix->useful_compute_sol_pct, (3 * decode.useful_busy_s + prefill.useful_busy_s) / time * 100,
              1e-9);
  EXPECT_NEAR(mix->tensor_activity_pct, (3 * decode.busy_s + prefill.busy_s) / time * 100, 1e-9);
  EXPECT_DOUBLE_EQ(mix->compute_sol_pct, mix->tensor_activity_pct);
}

TEST(ActivityTest, dequant_alu_work_by_hand) {
  // 4 experts of 5760 x 2880, 8 tokens in one 64-row tile: 4 x 1 x 5760 x 2880 x 2 instructions.
  EXPECT_DOUBLE_EQ(dequant_alu_ops(GemmShape{8, 5760, 2880, 4}, 64), 132'710'400.0);
  EXPECT_DOUBLE_EQ(dequant_alu_ops(GemmShape{130, 128, 64, 1}, 64), 3.0 * 128 * 64 * 2);
  EXPECT_DOUBLE_EQ(dequant_alu_ops(GemmShape{0, 128, 64, 1}, 64), 0.0);
  // H100 SXM: 132 SMs x 128 FP32 lanes at 1830 MHz.
  EXPECT_DOUBLE_EQ(alu_ops_per_s(builtin_gpu("H100"), 1830), 132.0 * 128 * 1830e6);
}

TEST(ActivityTest, mxfp4_experts_dequantise_on_hopper_and_bf16_attention_does_not) {
  // gpt-oss-20b's MXFP4 experts run BF16 math on H100 (2.5 item 1): the kernel dequantises.
  const Ceiling c = evaluate_cli("H100", fixture_arch("gpt-oss-20b"), Phase::Decode, 8, 1024, 0);
  const OpCost* experts = find_op(c, "experts_gate_up");
  const OpCost* qkv = find_op(c, "qkv_proj");
  ASSERT_NE(experts, nullptr);
  ASSERT_NE(qkv, nullptr);
  EXPECT_GT(experts->dequant_s, 0.0);
  EXPECT_DOUBLE_EQ(qkv->dequant_s, 0.0);
  EXPECT_GT(c.dequant_s, 0.0);
}

TEST(ActivityTest, fp8_weights_on_ampere_dequantise_per_m16_tile_by_hand) {
  // A100 has no FP8 tensor cores: FP8 weights run as W8A16 (Marlin), BF16 MMA after an in-register
  // dequantisation. qkv_proj at batch 8: one 16-row tile, 6144 x 4096 weights x 2 instructions, 32 layers, at
  // 108 SMs x 64 FP32 lanes x 1410 MHz.
  const ModelArch llama = fixture_arch("llama-3.1-8b");
  Workload w;
  w.step = *make_step(Phase::Decode, 8, 1024, 0);
  w.dtype = Dtype::Fp8;
  auto c = evaluate(builtin_db(), builtin_gpu("A100-SXM4-80GB"), llama, w);
  ASSERT_TRUE(c.has_value()) << c.error().describe();
  const OpCost* qkv = find_op(*c, "qkv_proj");
  ASSERT_NE(qkv, nullptr);
  EXPECT_EQ(qkv->math, Dtype::Bf16);
  EXPECT_NEAR(qkv->dequant_s, 32.0 * 6144 * 4096 * 2 / (108.0 * 64 * 1410e6), 1e-15);
  EXPECT_DOUBLE_EQ(qkv->padded_flops, 2.0 * qkv->flops);  // MMA work: 16 rows for 8 tokens
}

}  // namespace
}  // namespace solscope::ceiling
