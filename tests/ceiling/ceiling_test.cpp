#include "ceiling/ceiling.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "test_support.hpp"

namespace solscope::ceiling {
namespace {

using testing::builtin_db;
using testing::builtin_gpu;
using testing::evaluate_cli;
using testing::find_op;
using testing::fixture_arch;

auto slot(Limiter l) -> std::size_t {
  return static_cast<std::size_t>(l);
}

TEST(CeilingTest, llama_decode_batch_1_is_memory_bound_by_hand) {
  const Ceiling c = evaluate_cli("H100", fixture_arch("llama-3.1-8b"), Phase::Decode, 1, 1024, 0);
  // Kernels: embedding, 10 per layer x 32, final norm, LM head, logits.
  double kernels = 0;
  for (const OpCost& op : c.ops) kernels += op.kernels;
  EXPECT_DOUBLE_EQ(kernels, 324);
  EXPECT_NEAR(c.time_by_limiter_s[slot(Limiter::Overhead)], 324 * 5e-6, 1e-12);
  // Every kernel is memory-bound: its bytes at B_eff = 3.35 TB/s x 0.913.
  EXPECT_DOUBLE_EQ(c.time_by_limiter_s[slot(Limiter::Compute)], 0.0);
  EXPECT_NEAR(c.time_by_limiter_s[slot(Limiter::Memory)], c.dram_bytes / (3.35e12 * 0.913), 1e-12);
  // docs/design/ceiling-model.md 3.3: bytes per decoded token ~ (non-embedding params + LM head) x b_w + KV
  // = (6.98 + 0.525) B x 2 bytes = 15.01 GB of weights; the KV cache adds 128 KiB x 1025.
  EXPECT_NEAR(c.weight_bytes / 1e9, 15.01, 0.01);
  EXPECT_GT(c.dram_bytes, c.weight_bytes + 1025.0 * 128 * 1024);
  EXPECT_EQ(c.limiter, Limiter::Memory);
  // Useful work is tiny. At one token every dense GEMM runs a GEMV on the FMA pipe (2.7, kernel families), so
  // only attention touches the tensor pipe; the old rule padded the token to 64 rows and read 14.8%.
  EXPECT_LT(c.useful_compute_sol_pct, 1.0);
  EXPECT_LT(c.tensor_activity_pct, c.useful_compute_sol_pct);
  EXPECT_GT(c.tensor_activity_pct, 0.0);
  EXPECT_DOUBLE_EQ(c.compute_sol_pct, c.tensor_activity_pct);
  EXPECT_GT(c.memory_sol_pct, 50.0);
  EXPECT_DOUBLE_EQ(c.peak_flops_per_s, 132.0 * 4096 * 1830e6);
}

TEST(CeilingTest, long_prefill_is_compute_bound) {
  const Ceiling c = evaluate_cli("H100", fixture_arch("llama-3.1-8b"), Phase::Prefill, 1, 0, 8192);
  EXPECT_EQ(c.limiter, Limiter::Compute);
  EXPECT_GT(c.compute_sol_pct, 50.0);
  EXPECT_LT(c.compute_sol_pct, 80.0);  // no better than the 0.80 matmul efficiency
  // Busy time is padded FLOPs over the peak; at 8192 tokens the GEMMs need no padding.
  EXPECT_NEAR(c.busy_s, c.padded_flops / c.peak_flops_per_s, 1e-12);
  const OpCost* attention = find_op(c, "attention");
  ASSERT_NE(attention, nullptr);
  // 4 n_q d P_causal x L = 4 x 4096 x (8192 x 8193 / 2) x 32.
  EXPECT_DOUBLE_EQ(attention->flops, 4.0 * 4096 * (8192.0 * 8193 / 2) * 32);
  EXPECT_EQ(attention->limiter, Limiter::Compute);
  EXPECT_DOUBLE_EQ(c.tokens.computed, 8192);
}

TEST(CeilingTest, lower_clock_raises_compute_sol_of_a_memory_bound_step) {
  const ModelArch llama = fixture_arch("llama-3.1-8b");
  Workload w;
  w.step = *make_step(Phase::Decode, 1, 1024, 0);
  auto fast = evaluate(builtin_db(), builtin_gpu("H100"), llama, w);
  w.sm_clock_mhz = 915;
  auto slow = evaluate(builtin_db(), builtin_gpu("H100"), llama, w);
  ASSERT_TRUE(fast && slow);
  // Same bytes and time (memory-bound), half the peak: the pipe is busy twice as long.
  EXPECT_NEAR(slow->compute_sol_pct / fast->compute_sol_pct, 2.0, 1e-9);
  EXPECT_NEAR(slow->step_time_s, fast->step_time_s, 1e-12);
  w.sm_clock_mhz = 0;
  auto bad = evaluate(builtin_db(), builtin_gpu("H100"), llama, w);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("SM clock"), std::string::npos);
}

TEST(CeilingTest, mfu_of_a_measured_speed_by_hand) {
  const Ceiling c = evaluate_cli("H100", fixture_arch("llama-3.1-8b"), Phase::Decode, 1, 0, 0);
  // 100 tokens/s x ~15.0 GFLOP per token / 989.4 TFLOP/s.
  const double expected = 100.0 * c.model_flops / 989.4e12 * 100.0;
  EXPECT_NEAR(mfu_pct(c, 100.0), expected, 1e-3 * expected);
  EXPECT_NEAR(mfu_pct(c, 100.0), 0.152, 0.002);
  EXPECT_TRUE(std::isnan(mfu_pct(c, -1.0)));
  EXPECT_NEAR(c.mfu_pct, mfu_pct(c, c.tokens_per_s), 1e-12);
}

TEST(CeilingTest, mfu_counts_the_whole_tp_group) {
  const ModelArch llama = fixture_arch("llama-3.1-8b");
  const Ceiling one = evaluate_cli("H100", llama, Phase::Prefill, 1, 0, 4096, 1);
  const Ceiling two = evaluate_cli("H100", llama, Phase::Prefill, 1, 0, 4096, 2);
  EXPECT_NEAR(two.model_flops, one.model_flops, 1e-6 * one.model_flops);
  EXPECT_NEAR(mfu_pct(two, 1000.0), mfu_pct(one, 1000.0) / 2, 1e-9);
}

TEST(CeilingTest, training_triples_the_gemm_work) {
  const ModelArch llama = fixture_arch("llama-3.1-8b");
  const Ceiling prefill = evaluate_cli("H100", llama, Phase::Prefill, 2, 0, 2048);
  const Ceiling train = evaluate_cli("H100", llama, Phase::Train, 2, 0, 2048);
  for (const char* name : {"qkv_proj", "gate_up_proj", "attention", "lm_head"}) {
    ASSERT_NE(find_op(train, name), nullptr) << name;
    ASSERT_NE(find_op(prefill, name), nullptr) << name;
  }
  for (const char* name : {"qkv_proj", "gate_up_proj", "attention"}) {
    EXPECT_DOUBLE_EQ(find_op(train, name)->flops, 3 * find_op(prefill, name)->flops) << name;
  }
  // Every position is scored when training: the LM head has T rows, not one per request.
  EXPECT_DOUBLE_EQ(find_op(train, "lm_head")->flops, 3 * 2.0 * 4096 * 128256 * 4096);
  EXPECT_EQ(train.limiter, Limiter::Compute);
}

TEST(CeilingTest, tensor_parallelism_adds_interconnect_time) {
  const ModelArch llama = fixture_arch("llama-3.1-8b");
  const Ceiling one = evaluate_cli("H100", llama, Phase::Decode, 32, 1024, 0, 1);
  const Ceiling two = evaluate_cli("H100", llama, Phase::Decode, 32, 1024, 0, 2);
  EXPECT_NEAR(two.weight_bytes, one.weight_bytes / 2, 1e-3 * one.weight_bytes);
  // 65 all-reduces of 32 x 4096 x 2 bytes: 8 us + 2 x 1/2 x M / (450 GB/s x 0.65) each.
  const double each = 8e-6 + 32.0 * 4096 * 2 / 292.5e9;
  EXPECT_NEAR(two.time_by_limiter_s[slot(Limiter::Interconnect)], 65 * each, 1e-12);
  EXPECT_EQ(one.time_by_limiter_s[slot(Limiter::Interconnect)], 0.0);
  EXPECT_LT(two.step_time_s, one.step_time_s);
}

TEST(CeilingTest, moe_decode_reads_nearly_all_experts_at_batch_32) {
  const ModelArch mixtral = fixture_arch("mixtral-8x7b-v0.1");
  const Ceiling b1 = evaluate_cli("H100", mixtral, Phase::Decode, 1, 1024, 0, 2);
  const Ceiling b32 = evaluate_cli("H100", mixtral, Phase::Decode, 32, 1024, 0, 2);
  const double gate_up_1 = find_op(b1, "experts_gate_up")->weight_bytes;
  const double gate_up_32 = find_op(b32, "experts_gate_up")->weight_bytes;
  EXPECT_NEAR(gate_up_32 / gate_up_1, 4.0, 0.01);  // 8 of 8 experts vs 2 of 8
  EXPECT_EQ(b32.limiter, Limiter::Memory);
}

TEST(CeilingTest, notes_flag_a_model_that_does_not_fit) {
  const Ceiling c = evaluate_cli("H100", fixture_arch("mixtral-8x7b-v0.1"), Phase::Decode, 1, 0, 0, 1);
  bool found = false;
  for (const std::string& note : c.notes) found = found || note.find("does not fit") != std::string::npos;
  EXPECT_TRUE(found);
  EXPECT_NEAR(c.resident_weight_bytes / 1e9, 93.4, 0.1);  // 46.7 B x 2 bytes (3.3 "weights as shipped")
}

TEST(CeilingTest, step_mix_weights_busy_and_time) {
  const ModelArch llama = fixture_arch("llama-3.1-8b");
  const Ceiling decode = evaluate_cli("H100", llama, Phase::Decode, 64, 1024, 0);
  const Ceiling prefill = evaluate_cli("H100", llama, Phase::Prefill, 1, 0, 2048);
  const WeightedStep steps[] = {{&decode, 3.0}, {&prefill, 1.0}};
  auto mix = combine_steps(steps);
  ASSERT_TRUE(mix.has_value());
  const double busy = 3 * decode.busy_s + prefill.busy_s;
  const double time = 3 * decode.step_time_s + prefill.step_time_s;
  EXPECT_NEAR(mix->compute_sol_pct, busy / time * 100, 1e-9);
  double share = 0;
  for (double s : mix->time_share) share += s;
  EXPECT_NEAR(share, 1.0, 1e-12);
  const WeightedStep bad[] = {{&decode, -1.0}};
  EXPECT_FALSE(combine_steps(bad).has_value());
  EXPECT_FALSE(combine_steps({}).has_value());
}

TEST(CeilingTest, sliding_window_layers_read_at_most_the_window) {
  const ModelArch oss = fixture_arch("gpt-oss-20b");
  const Ceiling c = evaluate_cli("H100", oss, Phase::Decode, 8, 8192, 0);
  const OpCost* full = find_op(c, "attention");
  const OpCost* window = find_op(c, "attention_window");
  ASSERT_NE(full, nullptr);
  ASSERT_NE(window, nullptr);
  // 12 layers each: full layers read 8193 tokens per request, windowed ones 128.
  EXPECT_NEAR(window->flops / full->flops, 128.0 / 8193.0, 1e-12);
}

TEST(CeilingTest, bad_steps_are_rejected_with_ranges) {
  auto zero = make_step(Phase::Decode, 0, 10, 0);
  ASSERT_FALSE(zero.has_value());
  EXPECT_EQ(zero.error().message, "batch 0 is out of range");
  EXPECT_EQ(zero.error().hint, "use 1 to 1000000");
  auto no_prompt = make_step(Phase::Prefill, 1, 0, 0);
  ASSERT_FALSE(no_prompt.has_value());
  EXPECT_EQ(no_prompt.error().message, "prefill needs a prompt of at least 1 token");
  EXPECT_FALSE(make_step(Phase::Decode, 1, -5, 0).has_value());
  EXPECT_FALSE(make_step(Phase::Train, 1, 10, 100).has_value());
}

}  // namespace
}  // namespace solscope::ceiling
