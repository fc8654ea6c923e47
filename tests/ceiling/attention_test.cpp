// Attention kernel families (docs/design/ceiling-model.md 2.5 item 4, 2.7 "Kernel families"): decode tensor
// work padded per GQA group or MLA head tile, prefill efficiency per generation, FP8 attention math with an
// FP8 KV cache, and older spec files with a single attention_efficiency.
#include <gtest/gtest.h>

#include <string>

#include "ceiling/ceiling.hpp"
#include "ceiling/default_gpu_specs.hpp"
#include "ceiling/detail/attention_cost.hpp"
#include "test_support.hpp"

namespace solscope::ceiling {
namespace {

using testing::builtin_db;
using testing::builtin_gpu;
using testing::find_op;
using testing::fixture_arch;

auto bf16_peak(const GpuSpec& gpu) -> double {
  return peak_flops_per_s(gpu, Dtype::Bf16, gpu.tensor_spec_clock_mhz);
}

auto run(const GpuDatabase& db, const std::string& gpu, const ModelArch& arch, const Step& step, int tp = 1,
         std::optional<Dtype> kv = std::nullopt) -> Ceiling {
  Workload w;
  w.step = step;
  w.tensor_parallel = tp;
  w.kv_dtype = kv;
  auto found = find_gpu(db, gpu);
  EXPECT_TRUE(found.has_value()) << gpu;
  auto c = evaluate(db, **found, arch, w);
  EXPECT_TRUE(c.has_value()) << (c ? "" : c.error().describe());
  return c ? *c : Ceiling{};
}

auto decode(std::int64_t batch, std::int64_t context) -> Step {
  return *make_step(Phase::Decode, batch, context, 0);
}

auto prefill(std::int64_t tokens) -> Step {
  return *make_step(Phase::Prefill, 1, 0, tokens);
}

/// Compute seconds of the attention row (prefill at 8192 tokens is compute-bound).
auto compute_s(const OpCost& op) -> double {
  return op.time_by_limiter_s[static_cast<std::size_t>(Limiter::Compute)];
}

TEST(AttentionTest, padded_query_rows_round_up_to_the_tile) {
  EXPECT_DOUBLE_EQ(padded_query_rows(4, 16), 16.0);
  EXPECT_DOUBLE_EQ(padded_query_rows(4, 64), 64.0);
  EXPECT_DOUBLE_EQ(padded_query_rows(16, 64), 64.0);
  EXPECT_DOUBLE_EQ(padded_query_rows(128, 64), 128.0);
  EXPECT_DOUBLE_EQ(padded_query_rows(130, 64), 192.0);
  EXPECT_DOUBLE_EQ(padded_query_rows(8, 1), 8.0);  // an older spec file: no padding
  EXPECT_DOUBLE_EQ(padded_query_rows(0, 64), 0.0);
}

TEST(AttentionTest, llama_8b_decode_pads_the_gqa_group_of_4_to_64_rows_by_hand) {
  // Llama-3.1-8B: 32 query heads share 8 KV heads, g = 4. FlashAttention-2's split-KV decode (GA100) and
  // FlashAttention-3's one-warpgroup decode (Hopper) both put the 4 heads in a 64-row tile: 16x the useful
  // QK^T + PV work, 8 KV heads x 64 rows x 2 (128 + 128) FLOPs per cached token, layer and request.
  const ModelArch llama = fixture_arch("llama-3.1-8b");
  const double pairs = 8.0 * 1025;  // 8 requests, 1024 cached tokens + the new one
  for (const char* gpu : {"A100-SXM4-80GB", "H100"}) {
    const Ceiling c = run(builtin_db(), gpu, llama, decode(8, 1024));
    const OpCost* attention = find_op(c, "attention");
    ASSERT_NE(attention, nullptr) << gpu;
    EXPECT_DOUBLE_EQ(attention->flops, 32.0 * 4 * 32 * 128 * pairs) << gpu;
    EXPECT_DOUBLE_EQ(attention->padded_flops, 32.0 * 8 * 64 * 4 * 128 * pairs) << gpu;
    EXPECT_DOUBLE_EQ(attention->padded_flops, 16.0 * attention->flops) << gpu;
    EXPECT_NEAR(attention->busy_s, attention->padded_flops / bf16_peak(builtin_gpu(gpu)), 1e-15) << gpu;
    EXPECT_EQ(attention->limiter, Limiter::Memory) << gpu;  // the KV reads still bound it
  }
}

TEST(AttentionTest, a_16_row_decode_tile_pads_g_4_four_times) {
  // FlashInfer's tensor-core decode picks a 16-row tile for g x q <= 16 (one mma.sync m16 row block): the
  // spec file's query_tile moves the rule, 4 rows -> 16 = 4x.
  std::string text(default_gpu_specs_json());
  const std::string fa2 = R"("efficiency": {"default": 0.73}, "query_tile": 64)";
  const auto at = text.find(fa2);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, fa2.size(), R"("efficiency": {"default": 0.73}, "query_tile": 16)");
  auto db = parse_gpu_database(text, "edited specs");
  ASSERT_TRUE(db.has_value()) << db.error().describe();
  const Ceiling c = run(*db, "A100-SXM4-80GB", fixture_arch("llama-3.1-8b"), decode(8, 1024));
  const OpCost* attention = find_op(c, "attention");
  ASSERT_NE(attention, nullptr);
  EXPECT_DOUBLE_EQ(attention->padded_flops, 4.0 * attention->flops);
}

TEST(AttentionTest, decode_tensor_work_grows_with_context) {
  const ModelArch llama = fixture_arch("llama-3.1-8b");
  const Ceiling short_ctx = run(builtin_db(), "H100", llama, decode(8, 1024));
  const Ceiling long_ctx = run(builtin_db(), "H100", llama, decode(8, 4095));
  const OpCost* a = find_op(short_ctx, "attention");
  const OpCost* b = find_op(long_ctx, "attention");
  ASSERT_TRUE(a != nullptr && b != nullptr);
  EXPECT_NEAR(b->padded_flops / a->padded_flops, 4096.0 / 1025, 1e-12);
  EXPECT_NEAR(b->busy_s / a->busy_s, 4096.0 / 1025, 1e-12);
  EXPECT_GT(long_ctx.tensor_activity_pct, short_ctx.tensor_activity_pct);
}

TEST(AttentionTest, mla_decode_pads_the_heads_per_gpu_to_the_kernel_tile) {
  // DeepSeek-V3, absorbed decode: all query heads share the one latent, so M = n_q / tp. FlashMLA (Hopper)
  // tiles 64 rows: 128 heads at TP 1 need no padding, 16 heads at TP 8 pad to 64 (4x). vLLM's CUTLASS MLA
  // on Blackwell pads to 128 heads: 8x at TP 8.
  const ModelArch ds = fixture_arch("deepseek-v3");
  const Ceiling tp1 = run(builtin_db(), "H100", ds, decode(4, 1024), 1);
  const Ceiling tp8 = run(builtin_db(), "H100", ds, decode(4, 1024), 8);
  const Ceiling b200 = run(builtin_db(), "B200", ds, decode(4, 1024), 8);
  const OpCost* one = find_op(tp1, "attention");
  const OpCost* eight = find_op(tp8, "attention");
  const OpCost* blackwell = find_op(b200, "attention");
  ASSERT_TRUE(one != nullptr && eight != nullptr && blackwell != nullptr);
  // Per head, cached token and layer: 2 x (576 + 512) FLOPs; 61 layers, 4 x 1025 pairs.
  EXPECT_DOUBLE_EQ(one->flops, 61.0 * 128 * 2 * (576 + 512) * 4 * 1025);
  EXPECT_DOUBLE_EQ(one->padded_flops, one->flops);
  EXPECT_DOUBLE_EQ(eight->flops, one->flops / 8);
  EXPECT_DOUBLE_EQ(eight->padded_flops, 4.0 * eight->flops);
  EXPECT_DOUBLE_EQ(blackwell->padded_flops, 8.0 * blackwell->flops);
}

TEST(AttentionTest, prefill_efficiency_per_generation) {
  // BF16 prefill of 8192 tokens, compute-bound: FLOPs / (peak x efficiency) per layer group. FlashAttention-2
  // on A100 0.73 (arXiv 2307.08691: 50-73%), FlashAttention-3 on H100 0.75 (arXiv 2407.08608: 740 TFLOP/s),
  // FlashAttention-4 on B200 0.72 (1613 of 2250 TFLOP/s).
  const ModelArch llama = fixture_arch("llama-3.1-8b");
  for (const auto& [gpu, eff] :
       {std::pair{"A100-SXM4-80GB", 0.73}, std::pair{"H100", 0.75}, std::pair{"B200", 0.72}}) {
    const Ceiling c = run(builtin_db(), gpu, llama, prefill(8192));
    const OpCost* attention = find_op(c, "attention");
    ASSERT_NE(attention, nullptr) << gpu;
    EXPECT_EQ(attention->math, Dtype::Bf16) << gpu;
    EXPECT_EQ(attention->limiter, Limiter::Compute) << gpu;
    EXPECT_NEAR(compute_s(*attention), attention->flops / (bf16_peak(builtin_gpu(gpu)) * eff), 1e-12) << gpu;
    EXPECT_DOUBLE_EQ(attention->padded_flops, attention->flops) << gpu;  // prefill: no decode padding
  }
}

TEST(AttentionTest, fp8_kv_cache_runs_fp8_attention_on_hopper_but_not_on_ampere) {
  // The ceiling takes the fastest kernel the GPU supports: FlashAttention-3 FP8 / TensorRT-LLM FP8 context
  // FMHA on Hopper (close to 1.2 PFLOP/s = 0.61 of the FP8 peak); A100 has no FP8 tensor rate and
  // dequantises K and V to BF16.
  const ModelArch llama = fixture_arch("llama-3.1-8b");
  const GpuSpec& h100 = builtin_gpu("H100");
  const Ceiling hopper = run(builtin_db(), "H100", llama, prefill(8192), 1, Dtype::Fp8);
  const OpCost* fp8 = find_op(hopper, "attention");
  ASSERT_NE(fp8, nullptr);
  EXPECT_EQ(fp8->math, Dtype::Fp8);
  const double fp8_peak = peak_flops_per_s(h100, Dtype::Fp8, h100.tensor_spec_clock_mhz);
  EXPECT_NEAR(compute_s(*fp8), fp8->flops / (fp8_peak * 0.61), 1e-12);
  EXPECT_NEAR(fp8->busy_s, fp8->flops / fp8_peak, 1e-12);
  bool noted = false;
  for (const std::string& n : hopper.notes)
    noted |= n.find("FP8 KV cache: attention modelled at the FP8") == 0;
  EXPECT_TRUE(noted);

  const Ceiling ampere = run(builtin_db(), "A100-SXM4-80GB", llama, prefill(8192), 1, Dtype::Fp8);
  const OpCost* bf16 = find_op(ampere, "attention");
  ASSERT_NE(bf16, nullptr);
  EXPECT_EQ(bf16->math, Dtype::Bf16);
  EXPECT_NEAR(compute_s(*bf16), bf16->flops / (bf16_peak(builtin_gpu("A100-SXM4-80GB")) * 0.73), 1e-12);
  bool dequantised = false;
  for (const std::string& n : ampere.notes)
    dequantised |= n.find("dequantises K and V and runs bf16") != n.npos;
  EXPECT_TRUE(dequantised);

  // A BF16 KV cache keeps BF16 attention on Hopper too.
  const Ceiling bf16_kv = run(builtin_db(), "H100", llama, prefill(8192), 1, Dtype::Bf16);
  EXPECT_EQ(find_op(bf16_kv, "attention")->math, Dtype::Bf16);
}

TEST(AttentionTest, fp8_decode_attention_on_h200_stays_bound_by_kv_reads) {
  // Llama-3.1-70B (the architecture of Llama-3.3-70B), FP8 KV, 16 requests at 20,000 tokens: g = 8 in a
  // 64-row tile at the FP8 rate is 128 padded FLOPs per KV byte, under the H200's ridge.
  const Ceiling c =
      run(builtin_db(), "H200", fixture_arch("llama-3.1-70b"), decode(16, 20000), 1, Dtype::Fp8);
  const OpCost* attention = find_op(c, "attention");
  ASSERT_NE(attention, nullptr);
  EXPECT_EQ(attention->math, Dtype::Fp8);
  EXPECT_EQ(attention->limiter, Limiter::Memory);
  EXPECT_DOUBLE_EQ(attention->padded_flops, 8.0 * attention->flops);  // 8 rows -> 64
  const GpuSpec& h200 = builtin_gpu("H200");
  EXPECT_NEAR(attention->busy_s,
              attention->padded_flops / peak_flops_per_s(h200, Dtype::Fp8, h200.tensor_spec_clock_mhz),
              1e-15);
}

TEST(AttentionTest, an_older_spec_file_maps_attention_efficiency_to_every_family) {
  auto db = parse_gpu_database(R"({"architectures": [{"id": "a", "matmul_efficiency": {"default": 0.8},
      "attention_efficiency": 0.5, "gemm_token_tiles": [16, 128], "source": "synthetic"}],
      "gpus": [{"id": "G", "arch": "a", "sm_count": 10, "max_sm_clock_mhz": 1000, "tensor_spec_clock_mhz": 1000,
      "flop_per_clock_per_sm": {"bf16": 1024}, "memory_gb": 16, "memory_bandwidth_gb_per_s": 500,
      "link_bidir_gb_per_s": 0, "host_link_bidir_gb_per_s": 64, "memory_efficiency": 0.8,
      "kernel_overhead_us": 5, "source": "synthetic"}]})",
                               "old specs");
  ASSERT_TRUE(db.has_value()) << db.error().describe();
  const AttentionKernels& k = db->architectures[0].attention_kernels;
  for (const AttentionKernel* f : {&k.prefill, &k.decode, &k.mla_decode}) {
    EXPECT_DOUBLE_EQ(f->efficiency[index_of(Dtype::Bf16)], 0.5);
    EXPECT_DOUBLE_EQ(f->efficiency[index_of(Dtype::Fp8)], 0.5);
    EXPECT_EQ(f->query_tile, 1);  // the old costing: decode unpadded
    EXPECT_FALSE(f->fp8_math);
  }
  const Ceiling c = run(*db, "G", fixture_arch("llama-3.1-8b"), decode(8, 1024));
  EXPECT_DOUBLE_EQ(find_op(c, "attention")->padded_flops, find_op(c, "attention")->flops);
}

TEST(AttentionTest, attention_kernels_object_needs_every_family) {
  auto bad = parse_gpu_database(R"({"architectures": [{"id": "a", "matmul_efficiency": {"default": 0.8},
      "attention_kernels": {"prefill": {"kernel": "k", "efficiency": {"default": 0.5}}},
      "gemm_token_tiles": [16, 128], "source": "synthetic"}],
      "gpus": [{"id": "G", "arch": "a", "sm_count": 10, "max_sm_clock_mhz": 1000, "tensor_spec_clock_mhz": 1000,
      "flop_per_clock_per_sm": {"bf16": 1024}, "memory_gb": 16, "memory_bandwidth_gb_per_s": 500,
      "link_bidir_gb_per_s": 0, "host_link_bidir_gb_per_s": 64, "memory_efficiency": 0.8,
      "kernel_overhead_us": 5, "source": "synthetic"}]})",
                                "specs");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("attention_kernels.decode is missing"), std::string::npos)
      << bad.error().message;
}

}  // namespace
}  // namespace solscope::ceiling
