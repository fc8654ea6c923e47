// `solscope ceiling` says which weight, activation, KV-cache and GEMM math dtypes it used and where each came
// from (issue 22 item 2): config.json, quantization_config, hf_quant_config.json, --dtype / --kv-dtype, or a
// fallback on a GPU without the dtype's tensor rate; in the text report (single step and --serve) and in the
// JSON's `dtypes` object.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "ceiling/test_support.hpp"
#include "ceiling_run.hpp"
#include "cli/ceiling/ceiling_command.hpp"

namespace solscope::app {
namespace {

using ceiling::testing::fixture_path;
using testing::CommandRun;
using testing::run_with;

auto args_for(const std::string& gpu, const std::string& model) -> CeilingArgs {
  CeilingArgs args;
  args.gpu = gpu;
  args.model = fixture_path(model);
  return args;
}

/// The text report's dtype lines and the JSON's `dtypes` object of one run, checked exactly.
void expect_dtypes(CeilingArgs args, const std::string& lines, const char* json) {
  for (const bool serve : {false, true}) {
    args.serve = serve;
    args.json = false;
    const CommandRun text = run_with(args);
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("\n" + lines + "\n  attainable Compute SOL"), std::string::npos)
        << "serve " << serve << ": want\n"
        << lines << "in\n"
        << text.out;
    args.json = true;
    const CommandRun doc = run_with(args);
    ASSERT_EQ(doc.code, 0) << doc.err;
    EXPECT_EQ(nlohmann::json::parse(doc.out).at("dtypes"), nlohmann::json::parse(json)) << "serve " << serve;
  }
}

TEST(CeilingDtypesTest, a_plain_bf16_config) {
  expect_dtypes(args_for("H100", "llama-3.1-8b"),
                "  weights                 bf16 (config.json torch_dtype)\n"
                "  activations             bf16 (config.json torch_dtype)\n"
                "  KV cache                bf16 (config.json torch_dtype, as the activations)\n"
                "  GEMM math               bf16 (config.json torch_dtype)\n",
                R"({"weights": {"dtype": "bf16", "source": "config", "detail": "torch_dtype"},
                    "activations": {"dtype": "bf16", "source": "config", "detail": "torch_dtype"},
                    "kv_cache": {"dtype": "bf16", "source": "config", "detail": "torch_dtype, as the activations"},
                    "gemm_math": {"dtype": "bf16", "source": "config", "detail": "torch_dtype"}})");
}

TEST(CeilingDtypesTest, an_fp8_quantization_config) {
  expect_dtypes(
      args_for("H100", "deepseek-v3"),
      "  weights                 fp8 (quantization_config: fp8, block 128x128)\n"
      "  activations             bf16 (config.json torch_dtype)\n"
      "  KV cache                bf16 (config.json torch_dtype, as the activations)\n"
      "  GEMM math               fp8 (quantization_config: fp8, block 128x128)\n",
      R"({"weights": {"dtype": "fp8", "source": "quantization_config", "detail": "fp8, block 128x128"},
                    "activations": {"dtype": "bf16", "source": "config", "detail": "torch_dtype"},
                    "kv_cache": {"dtype": "bf16", "source": "config", "detail": "torch_dtype, as the activations"},
                    "gemm_math": {"dtype": "fp8", "source": "quantization_config",
                                  "detail": "fp8, block 128x128"}})");
}

// ModelOpt's hf_quant_config.json beside config.json: NVFP4 weights, an FP8 KV cache, and BF16 math on an
// H100, which has no FP4 tensor rate.
TEST(CeilingDtypesTest, hf_quant_config_with_an_fp8_kv_cache) {
  expect_dtypes(args_for("H100", "gemma-4-31b-it-nvfp4"),
                "  weights                 nvfp4 (hf_quant_config.json: modelopt NVFP4)\n"
                "  activations             bf16 (config.json text_config dtype)\n"
                "  KV cache                fp8 (hf_quant_config.json: kv_cache_quant_algo FP8)\n"
                "  GEMM math               bf16 (fallback: H100-SXM5-80GB has no fp4 tensor rate)\n",
                R"({"weights": {"dtype": "nvfp4", "source": "hf_quant_config", "detail": "modelopt NVFP4"},
                    "activations": {"dtype": "bf16", "source": "config", "detail": "text_config dtype"},
                    "kv_cache": {"dtype": "fp8", "source": "hf_quant_config", "detail": "kv_cache_quant_algo FP8"},
                    "gemm_math": {"dtype": "bf16", "source": "fallback",
                                  "detail": "H100-SXM5-80GB has no fp4 tensor rate"}})");
}

TEST(CeilingDtypesTest, the_dtype_and_kv_dtype_flags) {
  CeilingArgs args = args_for("H100", "llama-3.1-8b");
  args.dtype = "fp8";
  args.kv_dtype = "fp8";
  expect_dtypes(args,
                "  weights                 fp8 (--dtype)\n"
                "  activations             bf16 (config.json torch_dtype)\n"
                "  KV cache                fp8 (--kv-dtype)\n"
                "  GEMM math               fp8 (--dtype)\n",
                R"({"weights": {"dtype": "fp8", "source": "flag", "detail": "--dtype"},
                    "activations": {"dtype": "bf16", "source": "config", "detail": "torch_dtype"},
                    "kv_cache": {"dtype": "fp8", "source": "flag", "detail": "--kv-dtype"},
                    "gemm_math": {"dtype": "fp8", "source": "flag", "detail": "--dtype"}})");
}

// An A100 has no FP8 tensor rate: FP8 weights run BF16 math (W8A16), and the report says why.
TEST(CeilingDtypesTest, fp8_on_an_a100_falls_back_to_bf16_math) {
  CeilingArgs args = args_for("A100", "llama-3.1-8b");
  args.dtype = "fp8";
  expect_dtypes(args,
                "  weights                 fp8 (--dtype)\n"
                "  activations             bf16 (config.json torch_dtype)\n"
                "  KV cache                bf16 (--dtype, as the activations)\n"
                "  GEMM math               bf16 (fallback: A100-SXM4-80GB has no fp8 tensor rate)\n",
                R"({"weights": {"dtype": "fp8", "source": "flag", "detail": "--dtype"},
                    "activations": {"dtype": "bf16", "source": "config", "detail": "torch_dtype"},
                    "kv_cache": {"dtype": "bf16", "source": "flag", "detail": "--dtype, as the activations"},
                    "gemm_math": {"dtype": "bf16", "source": "fallback",
                                  "detail": "A100-SXM4-80GB has no fp8 tensor rate"}})");
}

}  // namespace
}  // namespace solscope::app
