// load_model_arch: config.json plus the ModelOpt hf_quant_config.json beside it (docs/design/ceiling-model.md
// 3.6).
#include "attainable/model_config_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ceiling/test_support.hpp"

namespace solscope::app {
namespace {

namespace fs = std::filesystem;
using ceiling::testing::fixture_path;
using ceiling::testing::fixture_text;

/// A directory under the temporary directory holding a config.json (and optionally hf_quant_config.json),
/// removed at the end of the test.
class ModelDir {
 public:
  explicit ModelDir(const std::string& config) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("solscope_model_config_file_" + std::string(info->name()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "config.json") << config;
  }
  ~ModelDir() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  ModelDir(const ModelDir&) = delete;
  auto operator=(const ModelDir&) -> ModelDir& = delete;
  void add_quant(const std::string& text) const { std::ofstream(dir_ / "hf_quant_config.json") << text; }
  [[nodiscard]] auto config() const -> fs::path { return dir_ / "config.json"; }

 private:
  fs::path dir_;
};

TEST(ModelConfigFileTest, reads_hf_quant_config_beside_config_json) {
  // SYNTHETIC pairing: the real Llama-3.1-8B config.json with an NVFP4 hf_quant_config.json of our own.
  ModelDir dir(fixture_text("llama-3.1-8b"));
  auto plain = load_model_arch(dir.config());
  ASSERT_TRUE(plain.has_value()) << plain.error().describe();
  EXPECT_TRUE(plain->quant.method.empty());
  EXPECT_FALSE(plain->kv_cache_dtype.has_value());
  dir.add_quant(R"({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "NVFP4",
      "kv_cache_quant_algo": "FP8", "group_size": 16, "exclude_modules": ["lm_head"]}})");
  auto quant = load_model_arch(dir.config());
  ASSERT_TRUE(quant.has_value()) << quant.error().describe();
  EXPECT_EQ(quant->quant.method, "modelopt");
  EXPECT_DOUBLE_EQ(quant->quant.bits_per_weight, 4.5);
  EXPECT_EQ(quant->quant.math, ceiling::Dtype::Fp4);
  EXPECT_FALSE(quant->quant.converted[ceiling::index_of(ceiling::Module::LmHead)]);
  ASSERT_TRUE(quant->kv_cache_dtype.has_value());
  EXPECT_EQ(*quant->kv_cache_dtype, ceiling::Dtype::Fp8);
}

TEST(ModelConfigFileTest, malformed_hf_quant_config_is_named) {
  ModelDir dir(fixture_text("llama-3.1-8b"));
  dir.add_quant(R"({"quantization": )");
  auto arch = load_model_arch(dir.config());
  ASSERT_FALSE(arch.has_value());
  EXPECT_NE(arch.error().message.find("hf_quant_config.json"), std::string::npos) << arch.error().message;
  dir.add_quant(R"({"producer": {"name": "modelopt"}})");
  auto missing = load_model_arch(dir.config());
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find("no 'quantization' object"), std::string::npos);
}

TEST(ModelConfigFileTest, real_nvfp4_checkpoint_directory) {
  auto arch = load_model_arch(fixture_path("qwen3.5-122b-a10b-nvfp4"));
  ASSERT_TRUE(arch.has_value()) << arch.error().describe();
  EXPECT_EQ(arch->quant.format, "nvfp4");
  EXPECT_DOUBLE_EQ(arch->quant.bits_per_weight, 4.5);
  EXPECT_EQ(arch->linear_layers(), 36);
}

}  // namespace
}  // namespace solscope::app
