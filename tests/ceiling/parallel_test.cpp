// Expert parallelism, attention data parallelism, pipeline parallelism, collective overlap and "does not
// fit" (docs/design/ceiling-model.md 2.8), with figures worked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ceiling/ceiling.hpp"
#include "ceiling/parallel.hpp"
#include "test_support.hpp"

namespace solscope::ceiling {
namespace {

using testing::builtin_db;
using testing::builtin_gpu;
using testing::find_op;
using testing::fixture_arch;

auto slot(Limiter l) -> std::size_t {
  return static_cast<std::size_t>(l);
}

auto workload(Phase phase, std::int64_t batch, std::int64_t context, std::int64_t prompt, int tp, int ep,
              bool dp_attention, int pp = 1, int microbatches = 0) -> Workload {
  Workload w;
  w.step = *make_step(phase, batch, context, prompt);
  w.tensor_parallel = tp;
  w.expert_parallel = ep;
  w.dp_attention = dp_attention;
  w.pipeline_parallel = pp;
  w.pp_microbatches = microbatches;
  return w;
}

auto run(const std::string& gpu, const ModelArch& arch, const Workload& w) -> Ceiling {
  auto c = evaluate(builtin_db(), builtin_gpu(gpu), arch, w);
  EXPECT_TRUE(c.has_value()) << (c ? "" : c.error().describe());
  return c ? *c : Ceiling{};
}

auto expert_bytes_per_weight(const ModelArch& arch, const Workload& w, const std::string& gpu) -> double {
  auto p = resolve_precision(arch, w, builtin_gpu(gpu));
  EXPECT_TRUE(p.has_value());
  return p ? p->weight_bytes[index_of(Module::Experts)] : 0.0;
}

// DeepSeek-V3 (256 routed experts of 3 x 7168 x 2048, 8 per token, 58 MoE layers) on 8 H200, EP 8 with
// attention data-parallel over the 8 GPUs, decoding 256 requests (32 per attention rank).
TEST(ParallelTest, deepseek_v3_ep8_dp_attention_by_hand) {
  const ModelArch ds = fixture_arch("deepseek-v3");
  const Workload w = workload(Phase::Decode, 256, 1024, 0, 1, 8, true);
  const Ceiling c = run("H200", ds, w);
  EXPECT_EQ(c.expert_parallel, 8);
  EXPECT_EQ(c.attention_dp, 8);
  EXPECT_EQ(c.gpus, 8);
  EXPECT_DOUBLE_EQ(c.experts_per_gpu, 32.0);
  // Expert weights per GPU: 58 layers x 32 experts x 3 x 7168 x 2048 = 81,738,596,352 weights.
  const double b_w = expert_bytes_per_weight(ds, w, "H200");
  EXPECT_GE(b_w, 1.0);  // FP8 plus its 128 x 128 block scales
  EXPECT_LT(b_w, 1.001);
  EXPECT_NEAR(c.resident_expert_bytes, 81'738'596'352.0 * b_w, 1.0);
  // All-to-all per GPU and MoE layer, each way: (256 / 8) tokens x 8 copies x 7168 x 2 bytes x 7/8 =
  // 3,211,264 bytes; dispatch + combine over 58 layers = 372,506,624 bytes.
  EXPECT_DOUBLE_EQ(c.all_to_all_bytes, 372'506'624.0);
  const OpCost* dispatch = find_op(c, "ep_dispatch");
  ASSERT_NE(dispatch, nullptr);
  EXPECT_DOUBLE_EQ(dispatch->kernels, 58);
  // t = (8 us + 3,211,264 / (900 GB/s / 2 x 0.65)) x (1 - 0.5 overlap), 58 times.
  EXPECT_NEAR(dispatch->time_by_limiter_s[slot(Limiter::Interconnect)],
              58 * (8e-6 + 3'211'264.0 / (450e9 * 0.65)) * 0.5, 1e-12);
  // Per GPU the experts compute 256 x 8 / 8 = 256 token-expert pairs per layer: 2 x 256 x 3 x 7168 x 2048
  // x 58.
  EXPECT_NEAR(find_op(c, "experts_gate_up")->flops + find_op(c, "experts_down")->flops,
              2.0 * 256 * 3 * 7168 * 2048 * 58, 1e3);
  // With TP 1 attention there is no all-reduce on any layer.
  EXPECT_EQ(find_op(c, "tp_all_reduce"), nullptr);
  EXPECT_TRUE(c.fits);
}

TEST(ParallelTest, ep_group_model_flops_equal_the_single_gpu_count) {
  // The 8 GPUs together do the work of one GPU running the whole step: MFU's numerator does not change.
  const ModelArch ds = fixture_arch("deepseek-v3");
  const Ceiling ep = run("H200", ds, workload(Phase::Decode, 256, 1024, 0, 1, 8, true));
  const Ceiling one = run("H200", ds, workload(Phase::Decode, 256, 1024, 0, 1, 1, false));
  EXPECT_NEAR(ep.model_flops / one.model_flops, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(ep.useful_compute_sol_pct,
                   ep.model_flops / (8 * ep.peak_flops_per_s * ep.step_time_s) * 100);
}

TEST(ParallelTest, deepseek_v3_fp8_does_not_fit_on_8_h100) {
  // 671 B weights at ~1 byte over 8 GPUs is ~84 GB each, above the 80 GB x 0.9 = 72 GB usable.
  const ModelArch ds = fixture_arch("deepseek-v3");
  const Workload w = workload(Phase::Decode, 1, 1024, 0, 8, 8, false);
  const Ceiling c = run("H100", ds, w);
  EXPECT_FALSE(c.fits);
  EXPECT_DOUBLE_EQ(c.memory_usable_bytes, 72e9);
  EXPECT_GT(c.resident_weight_bytes, 83e9);
  EXPECT_LT(c.resident_weight_bytes, 86e9);
  EXPECT_DOUBLE_EQ(c.memory_need_bytes,
                   c.resident_weight_bytes + c.resident_kv_bytes + c.resident_activation_bytes);
  // The weights by hand: experts / 8 (EP) and every other module / 8 (TP).
  const ParamCounts params = count_params(ds);
  auto p = resolve_precision(ds, w, builtin_gpu("H100"));
  ASSERT_TRUE(p.has_value());
  double weights = 0;
  for (std::size_t m = 0; m < kModuleCount; ++m) weights += params.by_module[m] * p->weight_bytes[m] / 8;
  EXPECT_NEAR(c.resident_weight_bytes, weights, 1.0);
  auto text = [](double bytes) {
    const long tenths = std::lround(bytes / 1e8);
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10);
  };
  const std::string expected = "does not fit: weights " + text(weights) + " GB + KV cache " +
                               text(c.resident_kv_bytes) + " GB + activations " +
                               text(c.resident_activation_bytes) + " GB = " + text(c.memory_need_bytes) +
                               " GB per GPU exceed the 72.0 GB usable of H100-SXM5-80GB (80.0 GB less a 10% "
                               "reserve); raise --tp, --ep or --pp, or lower the batch";
  bool found = false;
  for (const std::string& note : c.notes) found = found || note == expected;
  EXPECT_TRUE(found) << expected;
  // The same deployment on 8 H200 (141 GB x 0.9 = 126.9 GB usable) fits.
  const Ceiling h200 = run("H200", ds, w);
  EXPECT_TRUE(h200.fits);
  EXPECT_DOUBLE_EQ(h200.memory_usable_bytes, 126.9e9);
}

TEST(ParallelTest, pipeline_splits_layers_and_adds_the_bubble) {
  // Llama-3.1-8B, 32 layers on 2 stages, 8 requests in 2 microbatches of 4.
  const ModelArch llama = fixture_arch("llama-3.1-8b");
  const Ceiling c = run("H100", llama, workload(Phase::Decode, 8, 1024, 0, 1, 1, false, 2, 2));
  EXPECT_EQ(c.pipeline_parallel, 2);
  EXPECT_EQ(c.microbatches, 2);
  EXPECT_EQ(c.gpus, 2);
  EXPECT_DOUBLE_EQ(c.bubble_fraction, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(find_op(c, "qkv_proj")->kernels, 16.0 * 2);  // 16 layers x 2 microbatches
  EXPECT_DOUBLE_EQ(find_op(c, "lm_head")->kernels, 2.0);
  // Each microbatch sends 4 tokens x 4096 x 2 bytes to the next stage.
  EXPECT_DOUBLE_EQ(find_op(c, "pp_send")->collective_bytes, 2.0 * 4 * 4096 * 2);
  const OpCost* bubble = find_op(c, "pipeline_bubble");
  ASSERT_NE(bubble, nullptr);
  EXPECT_NEAR(bubble->time_s, c.step_time_s / 3.0, 1e-15);
  EXPECT_DOUBLE_EQ(c.tokens.computed, 8);
  // Default microbatches = pp; 32 layers on 3 stages: the busiest holds 11.
  const Ceiling three = run("H100", llama, workload(Phase::Decode, 9, 1024, 0, 1, 1, false, 3));
  EXPECT_EQ(three.microbatches, 3);
  EXPECT_DOUBLE_EQ(find_op(three, "qkv_proj")->kernels, 11.0 * 3);
  // 8 requests in 3 microbatches: shares of 3 (rounded up), said in a note.
  const Ceiling uneven = run("H100", llama, workload(Phase::Decode, 8, 1024, 0, 1, 1, false, 3));
  bool noted = false;
  for (const std::string& n : uneven.notes) noted = noted || n.find("rounded up") != std::string::npos;
  EXPECT_TRUE(noted);
  for (const std::string& n : three.notes) EXPECT_EQ(n.find("rounded up"), std::string::npos) << n;
}

// Gemma-4-26B-A4B runs a dense MLP (2112 wide) beside its 128 experts in each of its 30 layers
// (enable_moe_block); under EP 2 inside TP 2 the MLP stays TP-split and still sums its partial rows.
TEST(ParallelTest, gemma4_ep_keeps_the_dense_mlp_beside_the_experts) {
  const ModelArch gemma = fixture_arch("gemma-4-26b-a4b");
  const Ceiling c = run("H100", gemma, workload(Phase::Decode, 16, 1024, 0, 2, 2, false));
  EXPECT_EQ(c.expert_parallel, 2);
  const OpCost* mlp = find_op(c, "gate_up_proj");
  ASSERT_NE(mlp, nullptr);
  // 30 layers x 2 x 16 tokens x (2 x 1056) x 2816.
  EXPECT_DOUBLE_EQ(mlp->flops, 30.0 * 2 * 16 * 2 * 1056 * 2816);
  ASSERT_NE(find_op(c, "experts_gate_up"), nullptr);
  ASSERT_NE(find_op(c, "ep_combine"), nullptr);
  const OpCost* all_reduce = find_op(c, "tp_all_reduce");
  ASSERT_NE(all_reduce, nullptr);
  EXPECT_DOUBLE_EQ(all_reduce->kernels, 1 + 30 + 30);  // embedding, attention, MLP of each layer
}

// The fit check holds each layer kind's KV heads split over TP: Gemma-4-31B's 4 global KV heads at TP 8 are
// replicated (twice their share), and Qwen3.5-27B's linear layers add their recurrent state per request.
TEST(ParallelTest, fit_check_counts_kv_per_layer_kind_and_linear_state) {
  const ModelArch gemma = fixture_arch("gemma-4-31b-it-nvfp4");
  const Workload wg = workload(Phase::Decode, 4, 4096, 0, 8, 1, false);
  auto pg = resolve_precision(gemma, wg, builtin_gpu("H100"));
  ASSERT_TRUE(pg.has_value());
  const auto tokens = static_cast<double>(wg.step.groups[0].cached_tokens + wg.step.groups[0].new_tokens);
  EXPECT_DOUBLE_EQ(run("H100", gemma, wg).resident_kv_bytes,
                   4 * kv_bytes_per_sequence_per_gpu(gemma, tokens, pg->kv_bytes, 8));

  const ModelArch qwen = fixture_arch("qwen3.5-27b");
  const Workload wq = workload(Phase::Decode, 4, 4096, 0, 2, 1, false);
  auto pq = resolve_precision(qwen, wq, builtin_gpu("H100"));
  ASSERT_TRUE(pq.has_value());
  const double kv = kv_bytes_per_sequence_per_gpu(qwen, tokens, pq->kv_bytes, 2);
  const double state_per_request = run("H100", qwen, wq).resident_kv_bytes / 4 - kv;
  EXPECT_NEAR(state_per_request, 153.9e6 / 2, 0.1e6);  // 153.9 MB per request (model_arch.hpp), over TP 2
}

TEST(ParallelTest, tp_all_reduce_stays_on_the_critical_path) {
  // all_reduce_overlap is 0 in the spec file: TP figures are as before (2.2).
  const ModelArch llama = fixture_arch("llama-3.1-8b");
  const Ceiling c = run("H100", llama, workload(Phase::Decode, 32, 1024, 0, 2, 1, false));
  const OpCost* ar = find_op(c, "tp_all_reduce");
  ASSERT_NE(ar, nullptr);
  EXPECT_DOUBLE_EQ(ar->kernels, 65);  // 2 per layer + the embedding's
  const double bytes = 32 * 4096 * 2;
  EXPECT_NEAR(ar->time_by_limiter_s[slot(Limiter::Interconnect)],
              65 * (8e-6 + 2.0 * 1 / 2 * bytes / (450e9 * 0.65)), 1e-12);
}

TEST(ParallelTest, bad_layouts_are_refused_with_the_reason) {
  const ModelArch ds = fixture_arch("deepseek-v3");
  const ModelArch llama = fixture_arch("llama-3.1-8b");
  auto message = [](const ModelArch& arch, const Workload& w) {
    auto l = parallel_layout(arch, w);
    return l ? std::string() : l.error().message;
  };
  EXPECT_EQ(message(ds, workload(Phase::Decode, 1, 0, 0, 1, 3, true)),
            "--ep 3 does not divide the 256 experts");
  EXPECT_EQ(message(ds, workload(Phase::Decode, 1, 0, 0, 1, 8, false)),
            "--ep 8 without --dp-attention must equal --tp 1");
  EXPECT_EQ(message(ds, workload(Phase::Decode, 1, 0, 0, 16, 8, true)),
            "--dp-attention needs --ep to be a multiple of --tp (ep 8, tp 16)");
  EXPECT_EQ(message(llama, workload(Phase::Decode, 1, 0, 0, 1, 2, true)),
            "--ep 2 needs a mixture-of-experts model");
  EXPECT_EQ(message(llama, workload(Phase::Decode, 1, 0, 0, 1, 1, false, 33)), "--pp 33 is out of range");
  auto ok = parallel_layout(ds, workload(Phase::Decode, 1, 0, 0, 2, 8, true));
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->dp, 4);
  EXPECT_EQ(ok->gpus, 8);
}

TEST(ParallelTest, every_calibration_constant_names_its_source) {
  // docs/design/ceiling-model.md 7: the spec data gives a source per constant.
  const GpuDatabase& db = builtin_db();
  for (const ArchEfficiency& a : db.architectures) {
    for (const char* key : {"matmul_efficiency", "attention_kernel", "attention_prefill", "attention_decode",
                            "attention_mla_decode", "attention_fp8_math", "gemm_token_tiles"}) {
      EXPECT_FALSE(a.sources.count(key) == 0 || a.sources.at(key).empty()) << a.id << " " << key;
    }
    EXPECT_FALSE(a.mma_instruction.empty()) << a.id;
  }
  for (const GpuSpec& g : db.gpus) {
    EXPECT_EQ(g.sources.count("memory_efficiency"), 1U) << g.id;
    EXPECT_EQ(g.sources.count("kernel_overhead_us"), 1U) << g.id;
  }
  for (const char* key : {"latency_us", "bus_efficiency", "all_reduce_overlap", "all_to_all_overlap"}) {
    EXPECT_EQ(db.collective.sources.count(key), 1U) << key;
  }
  EXPECT_DOUBLE_EQ(db.collective.all_to_all_overlap, 0.5);
  EXPECT_DOUBLE_EQ(db.memory_reserve_fraction, 0.10);
  EXPECT_FALSE(db.memory_reserve_source.empty());
  // FlashAttention-3 (the single attention_efficiency became per-family figures, 2.5 item 4).
  EXPECT_DOUBLE_EQ(
      db.arch_of(builtin_gpu("H100")).attention_kernels.prefill.efficiency[index_of(Dtype::Bf16)], 0.75);
}

}  // namespace
}  // namespace solscope::ceiling
