// Where each dtype of a ceiling came from (resolve_precision's DtypeChoices, docs/design/ceiling-model.md 2.5
// item 1): config.json, quantization_config, hf_quant_config.json, a flag, a GPU fallback or the bf16
// default, and the words the reports print for each (ceiling_text.hpp). The `ceiling` command's text and JSON
// for the fixture configs are in tests/app/ceiling_dtypes_test.cpp.
#include <gtest/gtest.h>

#include <string>

#include "ceiling/ceiling_text.hpp"
#include "ceiling/detail/operators.hpp"
#include "test_support.hpp"

namespace solscope::ceiling {
namespace {

using testing::builtin_gpu;
using testing::fixture_arch;

/// A synthetic dense config with `extra` fields added at the top level.
auto synthetic(const std::string& extra) -> ModelArch {
  auto arch = parse_model_config(R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "intermediate_size": 128, "vocab_size": 1000)" +
                                     extra + "}",
                                 "synthetic");
  EXPECT_TRUE(arch.has_value()) << arch.error().describe();
  return arch ? *arch : ModelArch{};
}

auto dtypes_of(const ModelArch& arch, const Workload& w, const GpuSpec& gpu) -> DtypeChoices {
  auto p = resolve_precision(arch, w, gpu);
  EXPECT_TRUE(p.has_value()) << p.error().describe();
  return p ? p->dtypes : DtypeChoices{};
}

TEST(DtypeProvenanceTest, a_config_without_torch_dtype_is_the_bf16_default) {
  const DtypeChoices d = dtypes_of(synthetic(""), Workload{}, builtin_gpu("H100"));
  const DtypeChoice bf16_default{"bf16", DtypeSource::Default, "config.json names no torch_dtype"};
  EXPECT_EQ(d.activations, bf16_default);
  EXPECT_EQ(d.weights, bf16_default);
  EXPECT_EQ(d.gemm_math, bf16_default);
  EXPECT_EQ(d.kv_cache.detail, "config.json names no torch_dtype, as the activations");
  EXPECT_EQ(dtype_choice_text(d.activations), "bf16 (default: config.json names no torch_dtype)");
}

TEST(DtypeProvenanceTest, a_float32_checkpoint_says_it_is_served_in_bf16) {
  const DtypeChoices d =
      dtypes_of(synthetic(R"(, "torch_dtype": "float32")"), Workload{}, builtin_gpu("H100"));
  EXPECT_EQ(dtype_choice_text(d.activations), "bf16 (config.json torch_dtype float32, served as bf16)");
}

TEST(DtypeProvenanceTest, a_gpu_without_the_activation_rate_falls_back) {
  GpuSpec no_bf16 = builtin_gpu("H100");
  no_bf16.flop_per_clock_per_sm[index_of(Dtype::Bf16)] = 0;
  const DtypeChoices d = dtypes_of(fixture_arch("llama-3.1-8b"), Workload{}, no_bf16);
  const DtypeChoice fp16{"fp16", DtypeSource::Fallback, "H100-SXM5-80GB has no bf16 tensor rate"};
  EXPECT_EQ(d.activations, fp16);
  EXPECT_EQ(d.weights, fp16);
  EXPECT_EQ(dtype_choice_text(d.gemm_math), "fp16 (fallback: H100-SXM5-80GB has no bf16 tensor rate)");
}

TEST(DtypeProvenanceTest, weight_only_formats_say_the_gemms_dequantise) {
  const ModelArch awq =
      synthetic(R"(, "torch_dtype": "float16", "quantization_config": {"quant_method": "awq", "bits": 4,
      "group_size": 128})");
  const DtypeChoices d = dtypes_of(awq, Workload{}, builtin_gpu("H100"));
  EXPECT_EQ(d.weights, (DtypeChoice{"int4", DtypeSource::QuantizationConfig, "awq, g128"}));
  EXPECT_EQ(d.gemm_math,
            (DtypeChoice{"fp16", DtypeSource::QuantizationConfig, "weight-only: the GEMMs dequantise"}));
  EXPECT_EQ(d.activations, (DtypeChoice{"fp16", DtypeSource::Config, "torch_dtype"}));
  // --dtype replaces the checkpoint's format: its weights and activations come from the flag.
  Workload bf16;
  bf16.dtype = Dtype::Bf16;
  const DtypeChoices flagged = dtypes_of(awq, bf16, builtin_gpu("H100"));
  EXPECT_EQ(flagged.weights, (DtypeChoice{"bf16", DtypeSource::Flag, "--dtype"}));
  EXPECT_EQ(flagged.kv_cache, (DtypeChoice{"bf16", DtypeSource::Flag, "--dtype, as the activations"}));
}

TEST(DtypeProvenanceTest, the_kv_cache_of_a_quantization_config_and_of_hf_quant_config) {
  const ModelArch scheme = synthetic(R"(, "torch_dtype": "bfloat16", "quantization_config": {"quant_method":
      "fp8", "kv_cache_scheme": {"num_bits": 8, "type": "float"}})");
  EXPECT_EQ(dtypes_of(scheme, Workload{}, builtin_gpu("H100")).kv_cache,
            (DtypeChoice{"fp8", DtypeSource::QuantizationConfig, "kv_cache_scheme 8-bit float"}));
  // Gemma-4-31B NVFP4: hf_quant_config.json replaces config.json's quantization_config, KV cache included.
  const DtypeChoices gemma = dtypes_of(fixture_arch("gemma-4-31b-it-nvfp4"), Workload{}, builtin_gpu("H100"));
  EXPECT_EQ(gemma.kv_cache, (DtypeChoice{"fp8", DtypeSource::HfQuantConfig, "kv_cache_quant_algo FP8"}));
  EXPECT_EQ(dtype_choice_text(gemma.kv_cache), "fp8 (hf_quant_config.json: kv_cache_quant_algo FP8)");
  // On B200 the NVFP4 GEMMs run natively: the math comes from the same file as the weights.
  EXPECT_EQ(dtypes_of(fixture_arch("gemma-4-31b-it-nvfp4"), Workload{}, builtin_gpu("B200")).gemm_math,
            (DtypeChoice{"fp4", DtypeSource::HfQuantConfig, "modelopt NVFP4"}));
}

TEST(DtypeProvenanceTest, source_names_for_json) {
  EXPECT_EQ(to_string(DtypeSource::Config), "config");
  EXPECT_EQ(to_string(DtypeSource::QuantizationConfig), "quantization_config");
  EXPECT_EQ(to_string(DtypeSource::HfQuantConfig), "hf_quant_config");
  EXPECT_EQ(to_string(DtypeSource::Flag), "flag");
  EXPECT_EQ(to_string(DtypeSource::Fallback), "fallback");
  EXPECT_EQ(to_string(DtypeSource::Default), "default");
}

}  // namespace
}  // namespace solscope::ceiling
