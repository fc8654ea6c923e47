// KV-cache bytes per token and layer held against the engines' own formulas (docs/design/ceiling-model.md
// 2.2, 3.4): vLLM's AttentionSpec.page_size_bytes = 2 x block_size x num_kv_heads x head_size x dtype_size
// (vllm/v1/kv_cache_interface.py; the MLA spec stores one "head" of kv_lora_rank + qk_rope_head_dim, no
// factor 2) and TensorRT-LLM's per-layer KV tensor [batch, 2, kv heads, max seq, head dim] (docs "Memory
// Usage of TensorRT-LLM", KV cache tensor); and the decode attention operator's bytes read.
#include <gtest/gtest.h>

#include "ceiling/ceiling.hpp"
#include "test_support.hpp"

namespace solscope::ceiling {
namespace {

using testing::builtin_db;
using testing::builtin_gpu;
using testing::find_op;
using testing::fixture_arch;

/// vLLM's page of `block` tokens for one layer, divided back to one token.
auto vllm_bytes_per_token(double kv_heads, double head_size, double dtype_bytes, bool mla) -> double {
  constexpr double kBlock = 16;  // vLLM's default block_size; it cancels
  const double page = (mla ? 1.0 : 2.0) * kBlock * kv_heads * head_size * dtype_bytes;
  return page / kBlock;
}

TEST(KvBytesTest, llama_70b_gqa_matches_vllm_and_tensorrt_llm) {
  // 8 KV heads of 128: 4096 bytes per token and layer in BF16, 2048 in FP8; 80 layers.
  const ModelArch llama = fixture_arch("llama-3.1-70b");
  for (double b : {2.0, 1.0}) {
    EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_layer(llama, AttentionKind::Full, b),
                     vllm_bytes_per_token(8, 128, b, false));
    EXPECT_DOUBLE_EQ(kv_bytes_per_token(llama, b), 80 * 2 * 8 * 128 * b);  // TensorRT-LLM's tensor shape
  }
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_layer(llama, AttentionKind::Full, 1.0), 2048.0);
  // Under TP each GPU holds n_kv / t heads; past t = n_kv every GPU keeps one (replicated).
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence_per_gpu(llama, 1000, 1.0, 2),
                   kv_bytes_per_sequence(llama, 1000, 1.0) / 2);
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence_per_gpu(llama, 1000, 1.0, 16),
                   kv_bytes_per_sequence(llama, 1000, 1.0) / 8);
}

TEST(KvBytesTest, deepseek_v3_mla_caches_one_latent_head) {
  // kv_lora_rank 512 + qk_rope_head_dim 64 = 576 elements: 1152 bytes in BF16, 576 in FP8, not split by TP.
  const ModelArch ds = fixture_arch("deepseek-v3");
  for (double b : {2.0, 1.0}) {
    EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_layer(ds, AttentionKind::Full, b),
                     vllm_bytes_per_token(1, 512 + 64, b, true));
  }
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_layer(ds, AttentionKind::Full, 1.0), 576.0);
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence_per_gpu(ds, 1000, 1.0, 8), kv_bytes_per_sequence(ds, 1000, 1.0));
}

TEST(KvBytesTest, gpt_oss_120b_sliding_and_full_layers) {
  // 8 KV heads of 64 on both layer kinds (vLLM's SlidingWindowSpec has the full spec's page size); 18
  // sliding layers hold at most the 128-token window.
  const ModelArch oss = fixture_arch("gpt-oss-120b");
  for (double b : {2.0, 1.0}) {
    for (AttentionKind kind : {AttentionKind::Full, AttentionKind::Sliding}) {
      EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_layer(oss, kind, b), vllm_bytes_per_token(8, 64, b, false));
    }
  }
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence(oss, 1000, 2.0), (18.0 * 1000 + 18.0 * 128) * 2 * 8 * 64 * 2);
}

TEST(KvBytesTest, decode_attention_reads_the_cache_at_those_bytes) {
  // One request decoding at 1023 cached tokens on H200, FP8 KV: each of the 80 layers reads 1024 tokens x
  // 2048 bytes, plus Q in and O out (8192 BF16 elements each).
  Workload w;
  w.step = *make_step(Phase::Decode, 1, 1023, 0);
  w.kv_dtype = Dtype::Fp8;
  auto c = evaluate(builtin_db(), builtin_gpu("H200"), fixture_arch("llama-3.1-70b"), w);
  ASSERT_TRUE(c.has_value()) << c.error().describe();
  const OpCost* attention = find_op(*c, "attention");
  ASSERT_NE(attention, nullptr);
  EXPECT_DOUBLE_EQ(attention->dram_bytes, 80.0 * (1024 * 2048 + 2 * 8192 * 2));
}

}  // namespace
}  // namespace solscope::ceiling
