#include "ceiling/detail/operators.hpp"

#include <gtest/gtest.h>

#include <string>

#include "ceiling/ceiling.hpp"
#include "ceiling/detail/dtype.hpp"
#include "ceiling/model_arch.hpp"
#include "test_support.hpp"

namespace solscope::ceiling {
namespace {

using testing::builtin_db;
using testing::builtin_gpu;
using testing::evaluate_cli;
using testing::fixture_arch;

auto step_of(std::int64_t requests, std::int64_t new_tokens, std::int64_t cached) -> Step {
  return Step{{RequestGroup{requests, new_tokens, cached, true}}, false};
}

TEST(OperatorsTest, causal_pairs_and_kv_reads_by_hand) {
  // Fresh prefill of 8 tokens: 8 x 9 / 2 = 36 pairs; query tiles of 4 read keys 0-3, then 0-7.
  const AttentionWork fresh = attention_work(step_of(1, 8, 0), 0, 4);
  EXPECT_DOUBLE_EQ(fresh.pairs, 36.0);
  EXPECT_DOUBLE_EQ(fresh.kv_tokens_read, 12.0);
  // 4 new tokens on a cached prefix of 4: q (c - q) + q (q + 1) / 2 = 16 + 10.
  EXPECT_DOUBLE_EQ(attention_work(step_of(1, 4, 4), 0, 128).pairs, 26.0);
  // Decode: each of 3 requests reads its 1024 cached tokens plus the new one.
  const AttentionWork decode = attention_work(step_of(3, 1, 1024), 0, 128);
  EXPECT_DOUBLE_EQ(decode.pairs, 3.0 * 1025);
  EXPECT_DOUBLE_EQ(decode.kv_tokens_read, 3.0 * 1025);
}

TEST(OperatorsTest, sliding_window_caps_pairs_and_reads) {
  const AttentionWork decode = attention_work(step_of(2, 1, 1024), 128, 128);
  EXPECT_DOUBLE_EQ(decode.pairs, 2.0 * 128);
  EXPECT_DOUBLE_EQ(decode.kv_tokens_read, 2.0 * 128);
  // Prefill of 256 with W = 128: queries 0-127 see i + 1 keys (8256), queries 128-255 see 128 (16384). Tile 0
  // reads keys 0-127; tile 1 reads keys 1-255.
  const AttentionWork prefill = attention_work(step_of(1, 256, 0), 128, 128);
  EXPECT_DOUBLE_EQ(prefill.pairs, 8256.0 + 16384.0);
  EXPECT_DOUBLE_EQ(prefill.kv_tokens_read, 128.0 + 255.0);
}

TEST(OperatorsTest, active_experts_follow_uniform_routing) {
  // docs/design/ceiling-model.md 2.2: Qwen3-30B-A3B (128, 8): 8, 29, 82, 126 at T = 1, 4, 16, 64; Mixtral
  // (8, 2): 2, 5.5, 7.9.
  EXPECT_NEAR(expected_active_experts(128, 8, 1), 8.0, 1e-9);
  EXPECT_NEAR(expected_active_experts(128, 8, 4), 29.1, 0.1);
  EXPECT_NEAR(expected_active_experts(128, 8, 16), 82.4, 0.1);
  EXPECT_NEAR(expected_active_experts(128, 8, 64), 125.9, 0.1);
  EXPECT_NEAR(expected_active_experts(8, 2, 1), 2.0, 1e-9);
  EXPECT_NEAR(expected_active_experts(8, 2, 4), 5.47, 0.01);
  EXPECT_NEAR(expected_active_experts(8, 2, 16), 7.92, 0.01);
  EXPECT_EQ(expected_active_experts(8, 2, 0), 0.0);
}

struct DecodeFlops {
  const char* fixture;
  double gflop_per_token;  ///< docs/design/ceiling-model.md 3.3, "decode GFLOP per token"
};

TEST(OperatorsTest, decode_flops_per_token_match_published_derivations) {
  const DecodeFlops cases[] = {{"llama-3.1-8b", 15.0},      {"llama-3.1-70b", 139.0}, {"qwen2.5-7b", 14.1},
                               {"mixtral-8x7b-v0.1", 25.5}, {"qwen3-30b-a3b", 6.1},   {"gpt-oss-20b", 7.2}};
  for (const DecodeFlops& c : cases) {
    const Ceiling result = evaluate_cli("H200", fixture_arch(c.fixture), Phase::Decode, 1, 0, 0);
    EXPECT_NEAR(result.flops / 1e9, c.gflop_per_token, 0.015 * c.gflop_per_token) << c.fixture;
  }
  const Ceiling ds = evaluate_cli("H200", fixture_arch("deepseek-v3"), Phase::Decode, 1, 0, 0);
  EXPECT_NEAR(ds.flops / 1e9, 74.0, 0.05 * 74.0);
}

auto ops_for(const ModelArch& arch, int tp, Phase phase, std::int64_t batch, std::int64_t context,
             std::int64_t prompt) -> std::vector<Op> {
  Workload w;
  w.step = *make_step(phase, batch, context, prompt);
  w.tensor_parallel = tp;
  const GpuSpec& gpu = builtin_gpu("H100");
  auto precision = resolve_precision(arch, w, gpu);
  EXPECT_TRUE(precision.has_value());
  auto ops = build_ops(arch, w, *precision, builtin_db().arch_of(gpu));
  EXPECT_TRUE(ops.has_value()) << (ops ? "" : ops.error().describe());
  return ops ? *ops : std::vector<Op>{};
}

auto op_named(const std::vector<Op>& ops, std::string_view name) -> Op {
  for (const Op& op : ops) {
    if (op.name == name) return op;
  }
  ADD_FAILURE() << "no operator " << name;
  return Op{};
}

TEST(OperatorsTest, tensor_parallelism_divides_the_sharded_parts) {
  const ModelArch llama = fixture_arch("llama-3.1-8b");
  const auto one = ops_for(llama, 1, Phase::Decode, 8, 100, 0);
  const auto four = ops_for(llama, 4, Phase::Decode, 8, 100, 0);
  for (const char* name : {"qkv_proj", "o_proj", "gate_up_proj", "down_proj", "lm_head"}) {
    EXPECT_DOUBLE_EQ(op_named(one, name).weight_bytes / 4, op_named(four, name).weight_bytes) << name;
    EXPECT_DOUBLE_EQ(op_named(one, name).flops / 4, op_named(four, name).flops) << name;
  }
  EXPECT_DOUBLE_EQ(op_named(four, "qkv_proj").gemm.n, (8.0 + 2 * 2) * 128);  // 32/4 query + 2 x 8/4 KV heads
  EXPECT_DOUBLE_EQ(op_named(four, "attention").flops, op_named(one, "attention").flops / 4);
  // Two all-reduces per layer plus the vocab-parallel embedding, each of T h b_a bytes.
  const Op ar = op_named(four, "tp_all_reduce");
  double instances = 0;
  for (const Op& op : four) instances += op.name == "tp_all_reduce" ? op.instances : 0;
  EXPECT_DOUBLE_EQ(instances, 2 * 32 + 1);
  EXPECT_DOUBLE_EQ(ar.collective_bytes, 8.0 * 4096 * 2);
  for (const Op& op : one) EXPECT_NE(op.name, "tp_all_reduce");
}

TEST(OperatorsTest, kv_heads_are_replicated_when_tp_exceeds_them) {
  const auto ops = ops_for(fixture_arch("llama-3.1-8b"), 16, Phase::Decode, 1, 0, 0);
  EXPECT_DOUBLE_EQ(op_named(ops, "qkv_proj").gemm.n, (2.0 + 2 * 1) * 128);
}

TEST(OperatorsTest, tp_that_does_not_divide_the_heads_is_an_error) {
  const ModelArch llama = fixture_arch("llama-3.1-8b");
  Workload w;
  w.step = *make_step(Phase::Decode, 1, 0, 0);
  w.tensor_parallel = 3;
  auto result = evaluate(builtin_db(), builtin_gpu("H100"), llama, w);
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().message,
            "tensor parallelism 3 does not divide the 32 attention heads of meta-llama/Llama-3.1-8B");
}

TEST(OperatorsTest, moe_reads_only_the_experts_its_tokens_touch) {
  const ModelArch mixtral = fixture_arch("mixtral-8x7b-v0.1");
  const double one_expert_gate_up = 2.0 * 14336 * 4096 * 2;  // bytes of one expert's gate and up matrices
  const Op b1 = op_named(ops_for(mixtral, 1, Phase::Decode, 1, 0, 0), "experts_gate_up");
  EXPECT_DOUBLE_EQ(b1.weight_bytes, 2 * one_expert_gate_up);
  EXPECT_DOUBLE_EQ(b1.flops, 2.0 * 2 * (2 * 14336) * 4096);  // 2 experts x 1 token each
  const Op b64 = op_named(ops_for(mixtral, 2, Phase::Decode, 64, 0, 0), "experts_gate_up");
  EXPECT_NEAR(b64.weight_bytes, 8 * one_expert_gate_up / 2, 1e-3 * one_expert_gate_up);
  const Op router = op_named(ops_for(mixtral, 2, Phase::Decode, 64, 0, 0), "router");
  EXPECT_DOUBLE_EQ(router.gemm.n, 8.0);  // replicated, not split
  EXPECT_FALSE(router.sharded);
}

TEST(OperatorsTest, precision_follows_quantization_and_overrides) {
  const GpuSpec& h100 = builtin_gpu("H100");
  const GpuSpec& a100 = builtin_gpu("A100");
  auto oss = resolve_precision(fixture_arch("gpt-oss-20b"), Workload{}, h100);
  ASSERT_TRUE(oss.has_value());
  EXPECT_DOUBLE_EQ(oss->weight_bytes[static_cast<std::size_t>(Module::Experts)], 4.25 / 8);
  EXPECT_DOUBLE_EQ(oss->weight_bytes[static_cast<std::size_t>(Module::Attention)], 2.0);
  EXPECT_EQ(oss->math[static_cast<std::size_t>(Module::Experts)], Dtype::Bf16);

  const ModelArch ds = fixture_arch("deepseek-v3");
  auto on_h100 = resolve_precision(ds, Workload{}, h100);
  auto on_a100 = resolve_precision(ds, Workload{}, a100);
  ASSERT_TRUE(on_h100 && on_a100);
  EXPECT_EQ(on_h100->main_math, Dtype::Fp8);
  EXPECT_EQ(on_a100->main_math, Dtype::Bf16);
  ASSERT_EQ(on_a100->notes.size(), 1u);
  EXPECT_NE(on_a100->notes[0].find("fp8 block 128x128 weights run bf16 math on A100"), std::string::npos);
  EXPECT_NE(on_a100->notes[0].find("has no fp8 tensor rate"), std::string::npos);

  Workload fp8;
  fp8.dtype = Dtype::Fp8;
  fp8.kv_dtype = Dtype::Fp8;
  auto llama = resolve_precision(fixture_arch("llama-3.1-8b"), fp8, h100);
  ASSERT_TRUE(llama.has_value());
  EXPECT_EQ(llama->math[static_cast<std::size_t>(Module::DenseMlp)], Dtype::Fp8);
  EXPECT_DOUBLE_EQ(llama->weight_bytes[static_cast<std::size_t>(Module::DenseMlp)], 1.0);
  EXPECT_DOUBLE_EQ(llama->weight_bytes[static_cast<std::size_t>(Module::LmHead)], 2.0);
  EXPECT_DOUBLE_EQ(llama->kv_bytes, 1.0);

  Workload int4;
  int4.dtype = Dtype::Fp4;
  auto bad = resolve_precision(fixture_arch("llama-3.1-8b"), int4, h100);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message, "weight dtype fp4 is not modelled");
}

TEST(OperatorsTest, names_of_the_model_enums) {
  EXPECT_EQ(to_string(OpKind::Gemm), "gemm");
  EXPECT_EQ(to_string(OpKind::Collective), "collective");
  EXPECT_EQ(to_string(Dtype::Fp64), "fp64");
  EXPECT_EQ(to_string(Dtype::Int8), "int8");
  EXPECT_EQ(to_string(Dtype::Fp4), "fp4");
  EXPECT_EQ(to_string(Dtype::kCount), "unknown");
  EXPECT_EQ(to_string(Limiter::Overhead), "kernel_overhead");
  EXPECT_EQ(to_string(Limiter::Interconnect), "interconnect");
  EXPECT_EQ(to_string(Limiter::kCount), "unknown");
  EXPECT_EQ(to_string(Module::Embedding), "embedding");
  EXPECT_EQ(to_string(Module::LinearAttention), "linear_attention");
  EXPECT_EQ(to_string(AttentionKind::Sliding), "sliding");
}

TEST(OperatorsTest, bytes_per_element_of_each_dtype) {
  EXPECT_DOUBLE_EQ(bytes_per_element(Dtype::Fp64), 8.0);
  EXPECT_DOUBLE_EQ(bytes_per_element(Dtype::Tf32), 4.0);
  EXPECT_DOUBLE_EQ(bytes_per_element(Dtype::Bf16), 2.0);
  EXPECT_DOUBLE_EQ(bytes_per_element(Dtype::Int8), 1.0);
  EXPECT_DOUBLE_EQ(bytes_per_element(Dtype::Fp4), 0.5);
  EXPECT_DOUBLE_EQ(bytes_per_element(Dtype::kCount), 0.0);
}

}  // namespace
}  // namespace solscope::ceiling
