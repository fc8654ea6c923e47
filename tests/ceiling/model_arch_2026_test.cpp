// Architectures and quantisation formats of 2026 models (docs/design/ceiling-model.md 3.4-3.6) on the real
// config.json files of tests/data/hf_configs (sources in its README). Figures are computed by hand from the
// config values and checked against the vendors' published totals.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "ceiling/detail/operators.hpp"
#include "ceiling/model_arch.hpp"
#include "test_support.hpp"

namespace solscope::ceiling {
namespace {

using testing::builtin_gpu;
using testing::fixture_arch;

constexpr double kBillion = 1e9;
constexpr double kKiB = 1024.0;

auto module_index(Module m) -> std::size_t {
  return index_of(m);
}

TEST(ModelArch2026Test, every_fixture_config_parses) {
  const std::filesystem::path dir = std::filesystem::path(SOLSCOPE_TEST_DATA_DIR) / "hf_configs";
  int parsed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_directory()) continue;
    const std::string model = entry.path().filename().string();
    const ModelArch arch = fixture_arch(model);
    EXPECT_GT(arch.num_layers, 0) << model;
    std::int64_t layers = 0;
    for (const LayerGroup& g : arch.layer_groups) layers += g.count;
    EXPECT_EQ(layers, arch.num_layers) << model;
    ++parsed;
  }
  EXPECT_EQ(parsed, 15);  // 7 hand-written + 8 copied configs
}

struct Published {
  const char* fixture;
  double total_b;  ///< total on the model card (language model; see the README for what each includes)
};

TEST(ModelArch2026Test, parameter_counts_match_model_cards_within_two_percent) {
  const Published cases[] = {
      {"qwen3.5-27b", 27.0},
      {"qwen3.5-35b-a3b", 35.0},
      {"gemma-4-26b-a4b", 25.2},
      {"gemma-4-31b-it-nvfp4", 30.7},
      {"gpt-oss-120b", 116.83},
      {"deepseek-r1", 671.0},
      {"qwen3.5-122b-a10b-nvfp4", 122.0},
  };
  for (const Published& c : cases) {
    const ParamCounts p = count_params(fixture_arch(c.fixture));
    EXPECT_NEAR(p.total / kBillion, c.total_b, 0.02 * c.total_b) << c.fixture;
  }
  // Active per token from the cards: Gemma-4-26B-A4B 3.8 B, DeepSeek-R1 37 B.
  EXPECT_NEAR(count_params(fixture_arch("gemma-4-26b-a4b")).active / kBillion, 3.8, 0.02 * 3.8);
  EXPECT_NEAR(count_params(fixture_arch("deepseek-r1")).active / kBillion, 37.0, 0.02 * 37.0);
}

TEST(ModelArch2026Test, qwen35_9b_w4a16_checkpoint_reads_its_architecture_and_compressed_tensors) {
  const ModelArch arch = fixture_arch("qwen3.5-9b-w4a16");
  EXPECT_EQ(arch.num_layers, 32);
  EXPECT_EQ(arch.linear_layers(), 24);
  EXPECT_EQ(arch.full_layers(), 8);
  EXPECT_EQ(arch.hidden_size, 4096);
  // Model card: Qwen3.5-9B, 9 B parameters (the card's figure includes the vision encoder).
  EXPECT_NEAR(count_params(arch).total / kBillion, 9.0, 0.02 * 9.0);
  EXPECT_EQ(arch.quant.method, "compressed-tensors");
  EXPECT_DOUBLE_EQ(arch.quant.bits_per_weight, 4.0 + 16.0 / 128);  // INT4, symmetric, FP16 scale per 128
  // Its `ignore` list names vision-tower modules ("model.visual.blocks.0.mlp.linear_fc1"): they must not turn
  // the language model's MLP or attention back to BF16.
  EXPECT_TRUE(arch.quant.converted[module_index(Module::DenseMlp)]);
  EXPECT_TRUE(arch.quant.converted[module_index(Module::Attention)]);
  EXPECT_FALSE(arch.quant.converted[module_index(Module::LinearAttention)]);
  EXPECT_FALSE(arch.quant.converted[module_index(Module::LmHead)]);
}

TEST(ModelArch2026Test, qwen35_layers_are_three_linear_to_one_full) {
  const ModelArch dense = fixture_arch("qwen3.5-27b");
  EXPECT_EQ(dense.linear_layers(), 48);
  EXPECT_EQ(dense.full_layers(), 16);
  EXPECT_EQ(dense.sliding_layers(), 0);
  EXPECT_TRUE(dense.attn_output_gate);
  ASSERT_TRUE(dense.linear.has_value());
  EXPECT_EQ(dense.linear->num_value_heads, 48);
  EXPECT_DOUBLE_EQ(dense.linear->state_bytes_per_element, 4.0);  // mamba_ssm_dtype float32
  const ModelArch moe = fixture_arch("qwen3.5-35b-a3b");
  EXPECT_EQ(moe.linear_layers(), 30);
  EXPECT_EQ(moe.full_layers(), 10);
  EXPECT_EQ(moe.num_experts, 256);
  EXPECT_EQ(moe.experts_per_token, 8);
  EXPECT_EQ(moe.shared_intermediate_size, 512);
}

TEST(ModelArch2026Test, full_attention_interval_places_full_layers_without_layer_types) {
  // SYNTHETIC: Qwen3-Next-style config without layer_types; every 4th layer is full.
  auto arch = parse_model_config(R"({"model_type": "qwen3_next", "hidden_size": 256, "num_hidden_layers": 8,
      "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64, "intermediate_size": 512,
      "vocab_size": 1000, "full_attention_interval": 4, "linear_num_key_heads": 2, "linear_num_value_heads": 4,
      "linear_key_head_dim": 32, "linear_value_head_dim": 32, "linear_conv_kernel_dim": 4})",
                                 "synthetic");
  ASSERT_TRUE(arch.has_value()) << arch.error().describe();
  EXPECT_EQ(arch->linear_layers(), 6);
  EXPECT_EQ(arch->full_layers(), 2);
  EXPECT_TRUE(arch->attn_output_gate);  // qwen3_next always gates
  // Linear layers without shapes are refused with a message naming the fields.
  auto bad = parse_model_config(R"({"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
      "intermediate_size": 512, "vocab_size": 1000, "layer_types": ["linear_attention", "full_attention"]})",
                                "synthetic");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("linear_num_key_heads"), std::string::npos);
}

TEST(ModelArch2026Test, kv_bytes_per_token_by_layer_type) {
  // Qwen3.5-27B: 16 full layers x 2 x 4 KV heads x 256 x 2 B; linear layers hold no KV.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(fixture_arch("qwen3.5-27b"), 2), 16.0 * 2 * 4 * 256 * 2);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(fixture_arch("qwen3.5-27b"), 2), 64 * kKiB);
  // Gemma-4-26B-A4B: 5 global layers x 2 x 2 global KV heads x 512 = 20 KiB; 25 sliding layers of
  // 2 x 8 x 256 x 2 B = 8 KiB each, capped at the 1024-token window.
  const ModelArch gemma = fixture_arch("gemma-4-26b-a4b");
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(gemma, 2), 20 * kKiB);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_layer(gemma, AttentionKind::Sliding, 2), 8 * kKiB);
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence(gemma, 4096, 2), 4096 * 20 * kKiB + 25 * 8 * kKiB * 1024);
  // Gemma-4-31B: 10 global layers x 2 x 4 x 512 x 2 B = 80 KiB.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(fixture_arch("gemma-4-31b-it-nvfp4"), 2), 80 * kKiB);
  // gpt-oss-120b: 18 full layers x 2 x 8 x 64 x 2 B = 36 KiB (18 sliding layers of 128 tokens).
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(fixture_arch("gpt-oss-120b"), 2), 36 * kKiB);
  // DeepSeek-R1 (MLA): 61 layers x (512 + 64) x 2 B.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(fixture_arch("deepseek-r1"), 2), 61.0 * 576 * 2);
}

TEST(ModelArch2026Test, kv_bytes_per_gpu_split_each_layer_kind_by_its_own_heads) {
  // Gemma-4-31B at TP 8: sliding layers split 16 KV heads (1/8 each), the global layers' 4 heads are
  // replicated to one per rank (1/4 of their bytes).
  const ModelArch gemma = fixture_arch("gemma-4-31b-it-nvfp4");
  const double full = 10 * 2.0 * 4 * 512 * 2 * 4096 / 4;
  const double sliding = 50 * 2.0 * 16 * 256 * 2 * 1024 / 8;
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence_per_gpu(gemma, 4096, 2, 8), full + sliding);
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence_per_gpu(gemma, 4096, 2, 1), kv_bytes_per_sequence(gemma, 4096, 2));
  // MLA: the latent cache is on every rank.
  const ModelArch r1 = fixture_arch("deepseek-r1");
  EXPECT_DOUBLE_EQ(kv_bytes_per_sequence_per_gpu(r1, 1000, 1, 8), kv_bytes_per_sequence(r1, 1000, 1));
}

TEST(ModelArch2026Test, gemma4_global_layers_have_their_own_heads) {
  const ModelArch gemma = fixture_arch("gemma-4-31b-it-nvfp4");
  EXPECT_EQ(gemma.full_layers(), 10);
  EXPECT_EQ(gemma.sliding_layers(), 50);
  EXPECT_EQ(gemma.sliding_window, 1024);
  const AttentionShape global = attention_shape(gemma, AttentionKind::Full);
  const AttentionShape local = attention_shape(gemma, AttentionKind::Sliding);
  EXPECT_EQ(global.head_dim, 512);
  EXPECT_EQ(global.num_kv_heads, 4);
  EXPECT_TRUE(global.k_eq_v);
  EXPECT_EQ(local.head_dim, 256);
  EXPECT_EQ(local.num_kv_heads, 16);
  EXPECT_FALSE(local.k_eq_v);
}

TEST(ModelArch2026Test, linear_attention_state_bytes_per_request) {
  // Qwen3.5-27B, per linear layer: state 48 value heads x 128 x 128 x 4 B (float32) + conv state
  // (4 - 1) x (2 x 16 x 128 + 48 x 128) x 2 B; 48 linear layers.
  const double per_layer = 48.0 * 128 * 128 * 4 + 3.0 * 10240 * 2;
  const ModelArch dense = fixture_arch("qwen3.5-27b");
  EXPECT_DOUBLE_EQ(recurrent_state_bytes_per_layer(dense, 2), per_layer);
  EXPECT_DOUBLE_EQ(recurrent_state_bytes_per_request(dense, 2), 48 * per_layer);
  EXPECT_DOUBLE_EQ(recurrent_state_bytes_per_request(dense, 2), 153'944'064.0);
  // Qwen3.5-35B-A3B: 32 value heads, 30 linear layers.
  const double moe_layer = 32.0 * 128 * 128 * 4 + 3.0 * (2 * 16 * 128 + 32 * 128) * 2;
  EXPECT_DOUBLE_EQ(recurrent_state_bytes_per_request(fixture_arch("qwen3.5-35b-a3b"), 2), 30 * moe_layer);
  EXPECT_DOUBLE_EQ(recurrent_state_bytes_per_request(fixture_arch("llama-3.1-8b"), 2), 0.0);
}

TEST(ModelArch2026Test, routed_expert_bytes_follow_distinct_experts) {
  // gpt-oss-120b: one expert = 3 x 2880 x 2880 weights at 4.25 bits (MXFP4).
  const ModelArch oss = fixture_arch("gpt-oss-120b");
  const double oss_expert = 3.0 * 2880 * 2880 * 4.25 / 8;
  EXPECT_DOUBLE_EQ(routed_expert_bytes_per_layer(oss, 1, 4.25 / 8), 4 * oss_expert);
  const double oss_b64 = 128 * (1 - std::pow(1 - 4.0 / 128, 64));  // 111.2 distinct experts
  EXPECT_NEAR(oss_b64, 111.2, 0.05);
  EXPECT_NEAR(routed_expert_bytes_per_layer(oss, 64, 4.25 / 8), oss_b64 * oss_expert, 1.0);
  // Qwen3.5-35B-A3B: one expert = 3 x 2048 x 512 BF16 weights; 8 at B = 1, 222.4 of 256 at B = 64.
  const ModelArch qwen = fixture_arch("qwen3.5-35b-a3b");
  const double qwen_expert = 3.0 * 2048 * 512 * 2;
  EXPECT_DOUBLE_EQ(routed_expert_bytes_per_layer(qwen, 1, 2), 8 * qwen_expert);
  EXPECT_NEAR(routed_expert_bytes_per_layer(qwen, 64, 2) / qwen_expert, 222.4, 0.05);
  // The decode step's expert GEMMs read the same bytes (TP 1, B = 64).
  Workload w;
  w.step = *make_step(Phase::Decode, 64, 1000, 0);
  const GpuSpec& h100 = builtin_gpu("H100");
  auto precision = resolve_precision(qwen, w, h100);
  ASSERT_TRUE(precision.has_value());
  auto ops = build_ops(qwen, w, *precision, testing::builtin_db().arch_of(h100));
  ASSERT_TRUE(ops.has_value());
  double expert_weight_bytes = 0;
  for (const Op& op : *ops) {
    if (op.module == Module::Experts) expert_weight_bytes += op.instances * op.weight_bytes;
  }
  EXPECT_NEAR(expert_weight_bytes, 40 * routed_expert_bytes_per_layer(qwen, 64, 2), 40.0);  // 40 MoE layers
}

TEST(ModelArch2026Test, gemma4_moe_runs_a_dense_mlp_beside_the_experts) {
  const ModelArch gemma = fixture_arch("gemma-4-26b-a4b");
  EXPECT_EQ(gemma.num_experts, 128);
  EXPECT_EQ(gemma.experts_per_token, 8);  // top_k_experts
  EXPECT_EQ(gemma.expert_intermediate_size, 704);
  EXPECT_EQ(gemma.intermediate_size, 2112);
  EXPECT_TRUE(gemma.dense_mlp_beside_moe);
  EXPECT_EQ(gemma.moe_layers(), 30);
  // 30 dense MLPs of 3 x 2816 x 2112 beside 30 x 128 experts of 3 x 2816 x 704.
  const ParamCounts p = count_params(gemma);
  EXPECT_DOUBLE_EQ(p.by_module[module_index(Module::DenseMlp)], 30.0 * 3 * 2816 * 2112);
  EXPECT_DOUBLE_EQ(p.by_module[module_index(Module::Experts)], 30.0 * 128 * 3 * 2816 * 704);
}

TEST(ModelArch2026Test, moe_key_spellings) {
  // SYNTHETIC configs: each spelling of the expert count and of k reads the same.
  const char* base = R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "moe_intermediate_size": 32, "vocab_size": 100, )";
  for (const char* keys :
       {R"("num_experts": 8, "top_k_experts": 2})", R"("num_local_experts": 8, "num_experts_per_tok": 2})",
        R"("n_routed_experts": 8, "num_experts_per_token": 2})", R"("moe_num_experts": 8, "moe_topk": 2})",
        R"("num_experts": 8, "experts_per_token": 2})"}) {
    auto arch = parse_model_config(std::string(base) + keys, "synthetic");
    ASSERT_TRUE(arch.has_value()) << keys << ": " << arch.error().describe();
    EXPECT_EQ(arch->num_experts, 8) << keys;
    EXPECT_EQ(arch->experts_per_token, 2) << keys;
  }
}

TEST(ModelArch2026Test, bits_per_weight_of_quantised_formats) {
  const ModelArch oss = fixture_arch("gpt-oss-120b");
  EXPECT_DOUBLE_EQ(oss.quant.bits_per_weight, 4.0 + 8.0 / 32);  // MXFP4: E8M0 scale per 32
  // NVFP4 via hf_quant_config.json: FP8 scale per 16, attention kept in BF16, FP8 KV cache.
  const ModelArch gemma = fixture_arch("gemma-4-31b-it-nvfp4");
  EXPECT_EQ(gemma.quant.method, "modelopt");
  EXPECT_EQ(gemma.quant.format, "nvfp4");
  EXPECT_DOUBLE_EQ(gemma.quant.bits_per_weight, 4.5);
  EXPECT_EQ(gemma.quant.math, Dtype::Fp4);
  EXPECT_FALSE(gemma.quant.converted[module_index(Module::Attention)]);
  EXPECT_TRUE(gemma.quant.converted[module_index(Module::DenseMlp)]);
  EXPECT_FALSE(gemma.quant.converted[module_index(Module::LmHead)]);
  ASSERT_TRUE(gemma.kv_cache_dtype.has_value());
  EXPECT_EQ(*gemma.kv_cache_dtype, Dtype::Fp8);
  // The same model from config.json alone (quant_method modelopt inside it) reads the same.
  auto alone = parse_model_config(testing::fixture_text("gemma-4-31b-it-nvfp4"), "config.json only");
  ASSERT_TRUE(alone.has_value());
  EXPECT_DOUBLE_EQ(alone->quant.bits_per_weight, 4.5);
  // Qwen3.5-122B-A10B NVFP4 keeps linear attention and shared experts unconverted.
  const ModelArch q122 = fixture_arch("qwen3.5-122b-a10b-nvfp4");
  EXPECT_DOUBLE_EQ(q122.quant.bits_per_weight, 4.5);
  EXPECT_FALSE(q122.quant.converted[module_index(Module::LinearAttention)]);
  EXPECT_FALSE(q122.quant.converted[module_index(Module::SharedExperts)]);
  EXPECT_TRUE(q122.quant.converted[module_index(Module::Experts)]);
}

TEST(ModelArch2026Test, w4a16_bits_count_scales_and_zero_points) {
  // SYNTHETIC compressed-tensors W4A16, symmetric, group 128: 4 + 16 / 128 bits.
  auto ct = parse_model_config(R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "intermediate_size": 128, "vocab_size": 1000, "quantization_config": {"quant_method": "compressed-tensors",
      "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "int", "symmetric": true,
      "group_size": 128}, "targets": ["Linear"]}}}})",
                               "synthetic");
  ASSERT_TRUE(ct.has_value()) << ct.error().describe();
  EXPECT_DOUBLE_EQ(ct->quant.bits_per_weight, 4.125);
  EXPECT_FALSE(ct->quant.zero_points);
  EXPECT_EQ(ct->quant.math, Dtype::Bf16);
  // SYNTHETIC AWQ with zero points: 4 + (16 + 4) / 128 bits.
  auto awq = parse_model_config(R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "intermediate_size": 128, "vocab_size": 1000, "quantization_config": {"quant_method": "awq", "bits": 4,
      "group_size": 128, "zero_point": true}})",
                                "synthetic");
  ASSERT_TRUE(awq.has_value());
  EXPECT_DOUBLE_EQ(awq->quant.bits_per_weight, 4.15625);
  EXPECT_TRUE(awq->quant.zero_points);
  EXPECT_EQ(awq->quant.group_size, 128);
  EXPECT_TRUE(awq->quant.dequantises_on(true));  // weight-only: dequantised on every GPU
}

TEST(ModelArch2026Test, math_runs_on_the_dtype_the_gpu_executes) {
  const GpuSpec& b200 = builtin_gpu("B200");
  const GpuSpec& h100 = builtin_gpu("H100");
  const GpuSpec& a100 = builtin_gpu("A100");
  const std::size_t mlp = module_index(Module::DenseMlp);
  const std::size_t experts = module_index(Module::Experts);
  const ModelArch nvfp4 = fixture_arch("gemma-4-31b-it-nvfp4");
  EXPECT_EQ(resolve_precision(nvfp4, Workload{}, b200)->math[mlp], Dtype::Fp4);
  EXPECT_EQ(resolve_precision(nvfp4, Workload{}, h100)->math[mlp], Dtype::Bf16);  // dequantised
  EXPECT_DOUBLE_EQ(resolve_precision(nvfp4, Workload{}, h100)->kv_bytes, 1.0);    // FP8 KV
  const ModelArch oss = fixture_arch("gpt-oss-120b");
  EXPECT_EQ(resolve_precision(oss, Workload{}, b200)->math[experts], Dtype::Fp8);  // MXFP4 x MXFP8
  EXPECT_EQ(resolve_precision(oss, Workload{}, h100)->math[experts], Dtype::Bf16);
  EXPECT_TRUE(oss.quant.dequantises_on(false));  // no FP4 tensor rate
  EXPECT_FALSE(oss.quant.dequantises_on(true));
  const ModelArch r1 = fixture_arch("deepseek-r1");
  EXPECT_EQ(resolve_precision(r1, Workload{}, h100)->math[experts], Dtype::Fp8);
  EXPECT_EQ(resolve_precision(r1, Workload{}, a100)->math[experts], Dtype::Bf16);
}

TEST(ModelArch2026Test, qwen35_step_has_linear_attention_in_three_of_four_layers) {
  const ModelArch qwen = fixture_arch("qwen3.5-27b");
  Workload w;
  w.step = *make_step(Phase::Decode, 64, 1000, 0);
  const GpuSpec& h100 = builtin_gpu("H100");
  auto precision = resolve_precision(qwen, w, h100);
  ASSERT_TRUE(precision.has_value());
  auto ops = build_ops(qwen, w, *precision, testing::builtin_db().arch_of(h100));
  ASSERT_TRUE(ops.has_value());
  double linear = 0;
  double softmax = 0;
  double state_bytes = 0;
  for (const Op& op : *ops) {
    if (op.name == "linear_in_proj") linear += op.instances;
    if (op.name == "qkv_proj") softmax += op.instances;
    if (op.name == "linear_attention_state") state_bytes = op.bytes;
    EXPECT_NE(op.name, "linear_attention");  // decode: the recurrence is FMA work, not tensor work
  }
  EXPECT_DOUBLE_EQ(linear, 48);
  EXPECT_DOUBLE_EQ(softmax, 16);
  // Read and write each of the 64 requests' state, plus the conv inputs and outputs of 64 tokens.
  const double per_layer = 48.0 * 128 * 128 * 4 + 3.0 * 10240 * 2;
  EXPECT_DOUBLE_EQ(state_bytes, 2 * 64 * per_layer + 64.0 * (10240 + 6144) * 2);
  // A prefill chunk runs the chunked form on the tensor pipe.
  w.step = *make_step(Phase::Prefill, 1, 0, 1024);
  auto prefill = build_ops(qwen, w, *precision, testing::builtin_db().arch_of(h100));
  ASSERT_TRUE(prefill.has_value());
  double flops = 0;
  for (const Op& op : *prefill) {
    if (op.name == "linear_attention") flops = op.flops;
  }
  EXPECT_DOUBLE_EQ(flops, 1024.0 * 48 * (4.0 * 128 * 128 + 2.0 * 64 * 256));
}

}  // namespace
}  // namespace solscope::ceiling
