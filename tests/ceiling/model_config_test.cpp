#include "ceiling/model_arch.hpp"

#include <gtest/gtest.h>

#include <string>

#include "test_support.hpp"

namespace solscope::ceiling {
namespace {

using testing::fixture_arch;

constexpr double kBillion = 1e9;
constexpr double kKiB = 1024.0;

struct PublishedTotal {
  const char* fixture;
  double total_b;   ///< vendor's published total (docs/design/ceiling-model.md 3.3 / 3.2)
  double active_b;  ///< active per token (3.3)
};

// docs/design/ceiling-model.md 3.3: the counts match the vendors' published totals (8.03, 70.6, 7.61, 46.7,
// 30.5 and 20.9 B), the first check of the config parser. DeepSeek-V3: 671 B total, 37 B active.
TEST(ModelConfigTest, parameter_counts_match_published_totals_within_one_percent) {
  const PublishedTotal cases[] = {
      {"llama-3.1-8b", 8.03, 8.03},      {"llama-3.1-70b", 70.6, 70.55}, {"qwen2.5-7b", 7.61, 7.62},
      {"mixtral-8x7b-v0.1", 46.7, 12.9}, {"qwen3-30b-a3b", 30.5, 3.35},  {"gpt-oss-20b", 20.9, 4.19},
      {"deepseek-v3", 671.0, 37.0},
  };
  for (const PublishedTotal& c : cases) {
    const ParamCounts p = count_params(fixture_arch(c.fixture));
    EXPECT_NEAR(p.total / kBillion, c.total_b, 0.01 * c.total_b) << c.fixture;
    EXPECT_NEAR(p.active / kBillion, c.active_b, 0.015 * c.active_b) << c.fixture;
  }
}

TEST(ModelConfigTest, llama_8b_counts_by_hand) {
  const ParamCounts p = count_params(fixture_arch("llama-3.1-8b"));
  // Per layer: q 4096^2 + k,v 2 x 4096 x 1024 + o 4096^2 + MLP 3 x 4096 x 14336 + 2 norms of 4096.
  const double layer = 4096.0 * 4096 * 2 + 2.0 * 4096 * 1024 + 3.0 * 4096 * 14336 + 2.0 * 4096;
  const double embedding = 128256.0 * 4096;
  EXPECT_DOUBLE_EQ(p.total, 32 * layer + 2 * embedding + 4096);
  EXPECT_DOUBLE_EQ(p.embedding, embedding);
  EXPECT_NEAR(p.non_embedding / kBillion, 6.98, 0.01);  // 3.3 "non-embedding active"
}

TEST(ModelConfigTest, moe_active_parameters_count_k_experts_and_shared_ones) {
  const ParamCounts mixtral = count_params(fixture_arch("mixtral-8x7b-v0.1"));
  EXPECT_NEAR(mixtral.non_embedding_active / kBillion, 12.6, 0.05);  // 3.3
  const ParamCounts qwen3 = count_params(fixture_arch("qwen3-30b-a3b"));
  EXPECT_NEAR(qwen3.non_embedding_active / kBillion, 2.73, 0.02);
  const ParamCounts oss = count_params(fixture_arch("gpt-oss-20b"));
  EXPECT_NEAR(oss.non_embedding_active / kBillion, 3.03, 0.02);
  // OpenAI's 3.6 B active excludes the input embedding (3.3).
  EXPECT_NEAR((oss.active - oss.embedding) / kBillion, 3.6, 0.05);
}

TEST(ModelConfigTest, kv_bytes_per_token_match_hand_values) {
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(fixture_arch("llama-3.1-8b"), 2), 128 * kKiB);  // 2 x 32 x 8 x 128 x 2
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(fixture_arch("llama-3.1-70b"), 2), 320 * kKiB);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(fixture_arch("qwen2.5-7b"), 2), 56 * kKiB);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(fixture_arch("mixtral-8x7b-v0.1"), 2), 128 * kKiB);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(fixture_arch("qwen3-30b-a3b"), 2), 96 * kKiB);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(fixture_arch("gpt-oss-20b"), 2), 24 * kKiB);  // full layers only
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(fixture_arch("deepseek-v3"), 2), 576.0 * 61 * 2);
  // Sliding layers hold at most W = 128 tokens: 12 layers x 2 x 8 x 64 x 2 bytes x 128 on top of the full
  // layers.
  const ModelArch oss = fixture_arch("gpt-oss-20b");
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence(oss, 1000, 2), 1000 * 24 * kKiB + 12.0 * 2 * 8 * 64 * 2 * 128);
}

TEST(ModelConfigTest, reads_head_dim_windows_and_moe_layout) {
  const ModelArch llama = fixture_arch("llama-3.1-8b");
  EXPECT_EQ(llama.head_dim, 128);  // derived: 4096 / 32
  EXPECT_EQ(llama.num_kv_heads, 8);
  EXPECT_EQ(llama.mlp, MlpKind::Gated);
  EXPECT_EQ(llama.sliding_layers(), 0);
  const ModelArch qwen3 = fixture_arch("qwen3-30b-a3b");
  EXPECT_EQ(qwen3.head_dim, 128);  // explicit: 32 x 128 != 2048
  EXPECT_EQ(qwen3.moe_layers(), 48);
  EXPECT_TRUE(qwen3.qk_norm);
  const ModelArch oss = fixture_arch("gpt-oss-20b");
  EXPECT_EQ(oss.sliding_layers(), 12);
  EXPECT_EQ(oss.sliding_window, 128);
  EXPECT_EQ(oss.expert_intermediate_size, 2880);
  const ModelArch qwen25 = fixture_arch("qwen2.5-7b");
  EXPECT_EQ(qwen25.sliding_layers(), 0);  // use_sliding_window: false
  EXPECT_TRUE(qwen25.qkv_bias);
  const ModelArch ds = fixture_arch("deepseek-v3");
  EXPECT_EQ(ds.moe_layers(), 58);
  ASSERT_TRUE(ds.mla.has_value());
  EXPECT_EQ(ds.mla->kv_lora_rank, 512);
  EXPECT_EQ(ds.shared_intermediate_size, 2048);
}

TEST(ModelConfigTest, reads_quantization_config) {
  const ModelArch oss = fixture_arch("gpt-oss-20b");
  EXPECT_EQ(oss.quant.method, "mxfp4");
  EXPECT_DOUBLE_EQ(oss.quant.bits_per_weight, 4.25);
  EXPECT_EQ(oss.quant.math, Dtype::Fp8);           // MXFP4 x MXFP8 where FP4 tensor cores exist
  EXPECT_EQ(oss.quant.tensor_format, Dtype::Fp4);  // ... else dequantised to BF16
  EXPECT_EQ(oss.quant.group_size, 32);
  EXPECT_TRUE(oss.quant.converted[static_cast<std::size_t>(Module::Experts)]);
  EXPECT_FALSE(oss.quant.converted[static_cast<std::size_t>(Module::Attention)]);
  EXPECT_FALSE(oss.quant.converted[static_cast<std::size_t>(Module::Router)]);
  EXPECT_FALSE(oss.quant.converted[static_cast<std::size_t>(Module::LmHead)]);
  const ModelArch ds = fixture_arch("deepseek-v3");
  EXPECT_EQ(ds.quant.math, Dtype::Fp8);
  EXPECT_DOUBLE_EQ(ds.quant.bits_per_weight, 8.0 + 32.0 / (128 * 128));  // FP32 scale per 128x128 block
  EXPECT_EQ(ds.quant.format, "fp8 block 128x128");
  EXPECT_TRUE(ds.quant.converted[static_cast<std::size_t>(Module::Attention)]);
}

TEST(ModelConfigTest, awq_bits_include_group_scales) {
  // Synthetic AWQ config: 4 bits, group 128 -> 4 + (16 + 4) / 128 bits per weight.
  auto arch = parse_model_config(R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "intermediate_size": 128, "vocab_size": 1000,
      "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128}})",
                                 "synthetic");
  ASSERT_TRUE(arch.has_value()) << arch.error().describe();
  EXPECT_DOUBLE_EQ(arch->quant.bits_per_weight, 4.0 + 20.0 / 128.0);
  EXPECT_FALSE(arch->quant.converted[static_cast<std::size_t>(Module::LmHead)]);
}

TEST(ModelConfigTest, nested_text_config_is_read) {
  // Synthetic multimodal wrapper around Llama-3.1-8B's text shapes.
  auto arch =
      parse_model_config(R"({"architectures": ["LlavaForConditionalGeneration"], "model_type": "llava",
      "torch_dtype": "float16",
      "vision_config": {"hidden_size": 1024},
      "text_config": {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
                      "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                      "vocab_size": 128256}})",
                         "wrapper.json");
  ASSERT_TRUE(arch.has_value()) << arch.error().describe();
  EXPECT_EQ(arch->hidden_size, 4096);
  EXPECT_EQ(arch->checkpoint_dtype, Dtype::Fp16);  // the wrapper's dtype applies
  EXPECT_EQ(arch->name, "LlavaForConditionalGeneration");
  EXPECT_NEAR(count_params(*arch).total / kBillion, 8.03, 0.01);
}

TEST(ModelConfigTest, malformed_json_names_file_line_and_column) {
  auto arch =
      parse_model_config("{\n  \"hidden_size\": 4096,\n  \"num_hidden_layers\": 32,,\n}", "/m/config.json");
  ASSERT_FALSE(arch.has_value());
  EXPECT_EQ(arch.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_NE(arch.error().message.find("model config /m/config.json: invalid JSON at line 3, column 27"),
            std::string::npos)
      << arch.error().message;
}

// Found by fuzz/model_config_fuzz.cpp: nlohmann throws out_of_range (not parse_error) for a number past a
// double's range, and the exception ended the process (std::terminate) instead of being a clear error.
TEST(ModelConfigTest, number_too_large_for_a_double_is_an_error_not_a_crash) {
  auto arch = parse_model_config("{\n  \"hidden_size\": 4096,\n  \"max_position_embeddings\": 16e840\n}",
                                 "/m/config.json");
  ASSERT_FALSE(arch.has_value());
  EXPECT_EQ(arch.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(arch.error().message,
            "model config /m/config.json: invalid JSON: number overflow parsing '16e840'");
}

TEST(ModelConfigTest, missing_and_mistyped_fields_are_named) {
  auto missing =
      parse_model_config(R"({"num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 10})", "c");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message, "model config c: missing field 'hidden_size', 'n_embd' or 'd_model'");
  auto typed = parse_model_config(R"({"hidden_size": "4096", "num_hidden_layers": 2, "num_attention_heads": 4,
      "vocab_size": 10})",
                                  "c");
  ASSERT_FALSE(typed.has_value());
  EXPECT_EQ(typed.error().message, "model config c: field 'hidden_size' must be an integer, not \"4096\"");
  auto heads = parse_model_config(R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 6,
      "num_key_value_heads": 4, "intermediate_size": 128, "vocab_size": 10})",
                                  "c");
  ASSERT_FALSE(heads.has_value());
  EXPECT_NE(heads.error().message.find("6 attention heads are not a multiple of 4 key-value heads"),
            std::string::npos);
  auto array = parse_model_config("[1, 2]", "c");
  ASSERT_FALSE(array.has_value());
  EXPECT_EQ(array.error().message, "model config c: the top level must be a JSON object");
}

}  // namespace
}  // namespace solscope::ceiling
