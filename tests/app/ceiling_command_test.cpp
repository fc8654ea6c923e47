#include "cli/ceiling/ceiling_command.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "ceiling/test_support.hpp"
#include "ceiling_run.hpp"

namespace solscope::app {
namespace {

using ceiling::testing::fixture_path;

using testing::CommandRun;
using testing::run_with;

auto llama_decode() -> CeilingArgs {
  CeilingArgs args;
  args.gpu = "H100";
  args.model = fixture_path("llama-3.1-8b");
  args.phase = "decode";
  args.batch = 64;
  args.context = 1024;
  return args;
}

/// A file under the test's temporary directory, removed at the end of the test.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text)
      : path_(std::filesystem::temp_directory_path() /
              ("solscope_ceiling_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
               name)) {
    std::filesystem::create_directories(path_.parent_path());
    std::ofstream(path_) << text;
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  TempFile(const TempFile&) = delete;
  auto operator=(const TempFile&) -> TempFile& = delete;
  [[nodiscard]] auto path() const -> std::string { return path_.string(); }

 private:
  std::filesystem::path path_;
};

TEST(CeilingCommandTest, prints_a_readable_breakdown) {
  const CommandRun r = run_with(llama_decode());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty());
  EXPECT_NE(
      r.out.find(
          "Ceiling of meta-llama/Llama-3.1-8B on H100-SXM5-80GB: decode, batch 64, context 1,024, TP 1"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("attainable Compute SOL"), std::string::npos);
  EXPECT_NE(r.out.find("limited by              memory bandwidth"), std::string::npos);
  EXPECT_NE(r.out.find("where the time goes"), std::string::npos);
  EXPECT_NE(r.out.find("gate_up_proj"), std::string::npos);
}

TEST(CeilingCommandTest, json_output_and_model_directory) {
  CeilingArgs args = llama_decode();
  args.model = std::filesystem::path(fixture_path("llama-3.1-8b")).parent_path().string();
  args.json = true;
  args.tokens_per_s = 5000;
  const CommandRun r = run_with(args);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["gpu"]["id"], "H100-SXM5-80GB");
  EXPECT_EQ(j["limiter"], "memory");
  EXPECT_EQ(j["workload"]["batch"], 64);
  EXPECT_GT(j["ops"].size(), 10u);
  // Decode at batch 64 on H100: the dense GEMMs run swap-AB (docs/design/ceiling-model.md 2.7).
  for (const auto& op : j["ops"]) {
    if (op["name"] == "qkv_proj") {
      EXPECT_EQ(op["kernel_family"], "swap_ab");
    }
    if (op["kind"] != "gemm") {
      EXPECT_FALSE(op.contains("kernel_family")) << op["name"];
    }
  }
  EXPECT_GT(j["compute_sol_pct"].get<double>(), 0.0);
  const double mfu = j["measured"]["mfu_pct"].get<double>();
  EXPECT_NEAR(mfu, j["mfu_pct"].get<double>() * 5000 / j["tokens_per_s"].get<double>(), 1e-9);
}

TEST(CeilingCommandTest, unknown_gpu_suggests_a_name) {
  CeilingArgs args = llama_decode();
  args.gpu = "H100-SMX";
  const CommandRun r = run_with(args);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("solscope: error: unknown GPU 'H100-SMX'. did you mean H100-", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("known GPUs: A100-SXM4-40GB"), std::string::npos);
}

TEST(CeilingCommandTest, gpu_auto_needs_a_detector) {
  CeilingArgs args = llama_decode();
  args.gpu = "auto";
  const CommandRun none = run_with(args);
  EXPECT_EQ(none.code, 3);
  EXPECT_EQ(
      none.err.rfind("solscope: error: --gpu auto needs a GPU. pass --gpu NAME (one of A100-SXM4-40GB, ", 0),
      0u)
      << none.err;
  args.detect_gpu = [] { return core::Result<std::string>("NVIDIA H100 80GB HBM3"); };
  const CommandRun found = run_with(args);
  EXPECT_EQ(found.code, 0) << found.err;
  EXPECT_NE(found.out.find("on H100-SXM5-80GB"), std::string::npos);
}

TEST(CeilingCommandTest, unreadable_and_invalid_configs_name_the_file) {
  CeilingArgs args = llama_decode();
  args.model = "/nonexistent/solscope/config.json";
  const CommandRun missing = run_with(args);
  EXPECT_EQ(missing.code, 1);
  EXPECT_EQ(
      missing.err.rfind("solscope: error: cannot read model config /nonexistent/solscope/config.json: ", 0),
      0u)
      << missing.err;
  const TempFile bad("bad_config.json", "{\n  \"hidden_size\": 4096\n  \"num_hidden_layers\": 32\n}\n");
  args.model = bad.path();
  const CommandRun invalid = run_with(args);
  EXPECT_EQ(invalid.code, 1);
  EXPECT_NE(invalid.err.find("model config " + bad.path() + ": invalid JSON at line 3, column 21"),
            std::string::npos)
      << invalid.err;
  args.model = std::filesystem::temp_directory_path().string();
  const CommandRun dir = run_with(args);
  EXPECT_EQ(dir.code, 1);
  EXPECT_NE(dir.err.find("no config.json in directory"), std::string::npos) << dir.err;
}

TEST(CeilingCommandTest, nonsense_numbers_get_clear_errors) {
  struct Case {
    void (*edit)(CeilingArgs&);
    const char* message;
  };
  const Case cases[] = {
      {[](CeilingArgs& a) { a.batch = 0; }, "solscope: error: batch 0 is out of range. use 1 to 1000000"},
      {[](CeilingArgs& a) { a.context = -4; }, "solscope: error: context -4 is out of range"},
      {[](CeilingArgs& a) { a.tp = 0; }, "solscope: error: --tp 0 is out of range. use 1 to 1024 GPUs"},
      {[](CeilingArgs& a) { a.tp = 3; },
       "solscope: error: tensor parallelism 3 does not divide the 32 attention"},
      {[](CeilingArgs& a) { a.phase = "decod"; },
       "solscope: error: unknown --phase 'decod'. did you mean 'decode'?"},
      {[](CeilingArgs& a) { a.dtype = "int3"; },
       "solscope: error: --dtype 'int3' is not a dtype the model runs"},
      {[](CeilingArgs& a) { a.tokens_per_s = -1; },
       "solscope: error: --tokens-per-s must be a finite number >= 0"},
      {[](CeilingArgs& a) { a.sm_clock_mhz = 0; },
       "solscope: error: --sm-clock-mhz 0.000000 is out of range"},
      {[](CeilingArgs& a) { a.phase = "prefill"; },
       "solscope: error: prefill needs a prompt of at least 1 token"},
  };
  for (const Case& c : cases) {
    CeilingArgs args = llama_decode();
    c.edit(args);
    const CommandRun r = run_with(args);
    EXPECT_EQ(r.code, 2) << c.message;
    EXPECT_EQ(r.err.rfind(c.message, 0), 0u) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

TEST(CeilingCommandTest, custom_spec_file_replaces_the_builtin_one) {
  // Synthetic GPU: 10 SMs x 1024 BF16 FLOP/clock at 1 GHz = 10.24 TFLOP/s, 500 GB/s.
  const TempFile specs("specs.json", R"({"architectures": [{"id": "a", "matmul_efficiency": {"default": 0.8},
      "attention_efficiency": 0.5, "gemm_token_tiles": [16, 128], "source": "synthetic"}],
      "gpus": [{"id": "Toy-GPU", "arch": "a", "sm_count": 10, "max_sm_clock_mhz": 1000,
      "tensor_spec_clock_mhz": 1000, "flop_per_clock_per_sm": {"bf16": 1024}, "memory_gb": 200,
      "memory_bandwidth_gb_per_s": 500, "link_bidir_gb_per_s": 0, "host_link_bidir_gb_per_s": 64,
      "memory_efficiency": 0.8, "kernel_overhead_us": 5, "source": "synthetic"}]})");
  CeilingArgs args = llama_decode();
  args.gpu = "toy-gpu";
  args.gpu_specs = specs.path();
  args.json = true;
  const CommandRun r = run_with(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(r.out)["gpu"]["peak_flops_per_s"].get<double>(), 10.24e12);
  const TempFile broken("broken.json", "{\"gpus\": [}");
  args.gpu_specs = broken.path();
  const CommandRun bad = run_with(args);
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("GPU specs " + broken.path() + ": invalid JSON at line 1, column 11"),
            std::string::npos)
      << bad.err;
}

TEST(CeilingCommandTest, options_parse_into_the_args) {
  CLI::App app;
  CeilingArgs args;
  add_ceiling_options(*app.add_subcommand("ceiling"), args);
  app.parse(
      "ceiling --gpu A100 --model m --tp 2 --phase prefill --prompt 8192 --tokens-per-s 1500 "
      "--kv-dtype fp8 --json",
      false);
  EXPECT_EQ(args.gpu, "A100");
  EXPECT_EQ(args.model, "m");
  EXPECT_EQ(args.tp, 2);
  EXPECT_EQ(args.phase, "prefill");
  EXPECT_EQ(args.prompt, 8192);
  EXPECT_DOUBLE_EQ(args.tokens_per_s, 1500);
  EXPECT_EQ(args.kv_dtype, "fp8");
  EXPECT_TRUE(args.json);
}

}  // namespace
}  // namespace solscope::app
