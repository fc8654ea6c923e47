#include "ceiling/gpu_spec.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "test_support.hpp"

namespace solscope::ceiling {
namespace {

using testing::builtin_db;
using testing::builtin_gpu;

constexpr double kTera = 1e12;

TEST(GpuSpecTest, builtin_file_parses_with_a_source_on_every_row) {
  const GpuDatabase& db = builtin_db();
  ASSERT_EQ(db.gpus.size(), 19u);
  for (const GpuSpec& gpu : db.gpus) {
    EXPECT_FALSE(gpu.source.empty()) << gpu.id;
    EXPECT_GT(gpu.sm_count, 0) << gpu.id;
  }
  for (const ArchEfficiency& arch : db.architectures) EXPECT_FALSE(arch.source.empty()) << arch.id;
  EXPECT_DOUBLE_EQ(db.collective.latency_us, 8.0);
  EXPECT_DOUBLE_EQ(db.collective.bus_efficiency, 0.65);
}

// docs/design/ceiling-model.md 1.3: SMs x FLOP/clock/SM x clock reproduces every dense datasheet figure of
// table 1.1 within rounding. Tensor figures are quoted at the tensor-spec clock, FP32/FP64 vector figures at
// the maximum clock.
TEST(GpuSpecTest, every_row_reproduces_its_datasheet_dense_peak) {
  int checked = 0;
  for (const GpuSpec& gpu : builtin_db().gpus) {
    for (Dtype d : all_dtypes()) {
      const double sheet = gpu.datasheet_dense_tflops[index_of(d)];
      if (std::isnan(sheet)) continue;
      const bool vector = d == Dtype::Fp32 || d == Dtype::Fp64;
      const double clock = vector ? gpu.max_sm_clock_mhz : gpu.tensor_spec_clock_mhz;
      const double computed = peak_flops_per_s(gpu, d, clock) / kTera;
      EXPECT_NEAR(computed, sheet, 0.01 * sheet) << gpu.id << " " << to_string(d);
      ++checked;
    }
  }
  EXPECT_GE(checked, 45);
}

// The datasheet's 1979 TFLOP/s BF16 for H100 SXM is the 2:4-sparse figure (docs/design/ceiling-model.md 0).
TEST(GpuSpecTest, h100_bf16_peak_is_dense_not_sparse) {
  const GpuSpec& h100 = builtin_gpu("H100-SXM5-80GB");
  const double bf16 = peak_flops_per_s(h100, Dtype::Bf16, h100.tensor_spec_clock_mhz) / kTera;
  EXPECT_NEAR(bf16, 989.4, 0.5);
  EXPECT_LT(bf16, 1979.0 * 0.6);
  EXPECT_NEAR(peak_flops_per_s(h100, Dtype::Fp8, h100.tensor_spec_clock_mhz) / kTera, 1978.9, 1.0);
  // At the 1980 MHz maximum clock the same SMs give 132 x 4096 x 1.98 GHz = 1070.5 TFLOP/s.
  EXPECT_NEAR(peak_flops_per_s(h100, Dtype::Bf16, 1980) / kTera, 1070.5, 0.5);
  const GpuSpec& a100 = builtin_gpu("A100-SXM4-80GB");
  EXPECT_NEAR(peak_flops_per_s(a100, Dtype::Bf16, 1410) / kTera, 311.9, 0.1);
  EXPECT_EQ(peak_flops_per_s(a100, Dtype::Fp8, 1410), 0.0);
}

TEST(GpuSpecTest, peak_scales_linearly_with_the_live_clock) {
  const GpuSpec& h100 = builtin_gpu("H100");
  const double at_spec = peak_flops_per_s(h100, Dtype::Bf16, 1830);
  EXPECT_NEAR(peak_flops_per_s(h100, Dtype::Bf16, 915) / at_spec, 0.5, 1e-12);
}

TEST(GpuSpecTest, geforce_rates_use_fp32_accumulate) {
  const GpuSpec& rtx = builtin_gpu("RTX-4090");
  EXPECT_NEAR(peak_flops_per_s(rtx, Dtype::Bf16, 2520) / kTera, 165.2, 0.1);  // not 330.3 (FP16 accumulate)
}

TEST(GpuSpecTest, finds_gpus_by_alias_and_nvml_name) {
  const GpuDatabase& db = builtin_db();
  for (const char* name : {"h100", "H100 SXM", "NVIDIA H100 80GB HBM3", "h100-sxm5-80gb"}) {
    auto gpu = find_gpu(db, name);
    ASSERT_TRUE(gpu.has_value()) << name;
    EXPECT_EQ((*gpu)->id, "H100-SXM5-80GB") << name;
  }
  auto a100 = find_gpu(db, "NVIDIA A100-SXM4-80GB");
  ASSERT_TRUE(a100.has_value());
  EXPECT_EQ((*a100)->id, "A100-SXM4-80GB");
  EXPECT_EQ(normalize_gpu_name("NVIDIA GeForce RTX 4090"), "geforcertx4090");
}

TEST(GpuSpecTest, unknown_gpu_suggests_close_names_and_lists_all) {
  auto gpu = find_gpu(builtin_db(), "H100-SMX5-80GB");
  ASSERT_FALSE(gpu.has_value());
  EXPECT_EQ(gpu.error().code, core::ErrorCode::NotFound);
  EXPECT_EQ(gpu.error().message, "unknown GPU 'H100-SMX5-80GB'");
  EXPECT_NE(gpu.error().hint.find("did you mean H100-SXM5-80GB"), std::string::npos) << gpu.error().hint;
  EXPECT_NE(gpu.error().hint.find("MI300X"), std::string::npos);
  auto far = find_gpu(builtin_db(), "quantum-toaster");
  ASSERT_FALSE(far.has_value());
  EXPECT_EQ(far.error().hint.find("did you mean"), std::string::npos);
}

TEST(GpuSpecTest, malformed_file_reports_line_and_column) {
  auto db = parse_gpu_database("{\n  \"gpus\": [\n    {\"id\": }\n  ]\n}", "my.json");
  ASSERT_FALSE(db.has_value());
  EXPECT_NE(db.error().message.find("GPU specs my.json: invalid JSON at line 3, column 12"),
            std::string::npos)
      << db.error().message;
}

/// A minimal valid spec file (synthetic figures) with one field replaced.
auto spec_with(const std::string& gpu_fields) -> std::string {
  return R"({"architectures": [{"id": "a", "matmul_efficiency": {"default": 0.8}, "attention_efficiency": 0.5,
              "gemm_token_tiles": [16, 128], "source": "synthetic"}],
             "gpus": [{"id": "X1", "arch": "a", "sm_count": 10, "max_sm_clock_mhz": 1000,
                       "tensor_spec_clock_mhz": 1000, "flop_per_clock_per_sm": {"bf16": 1024},
                       "memory_gb": 16, "memory_bandwidth_gb_per_s": 500, "link_bidir_gb_per_s": 0,
                       "host_link_bidir_gb_per_s": 64, "memory_efficiency": 0.8, "kernel_overhead_us": 5)" +
         gpu_fields + "}]}";
}

TEST(GpuSpecTest, row_errors_name_the_row_and_field) {
  auto ok = parse_gpu_database(spec_with(R"(, "source": "synthetic")"), "t.json");
  ASSERT_TRUE(ok.has_value()) << ok.error().describe();
  EXPECT_NEAR(peak_flops_per_s(ok->gpus[0], Dtype::Bf16, 1000), 10 * 1024 * 1e9, 1);

  auto no_source = parse_gpu_database(spec_with(""), "t.json");
  ASSERT_FALSE(no_source.has_value());
  EXPECT_EQ(no_source.error().message, "GPU specs t.json: gpus[0] (X1): missing 'source'");

  auto bad_arch = parse_gpu_database(spec_with(R"(, "source": "s", "arch": "zz")"), "t.json");
  ASSERT_FALSE(bad_arch.has_value());
  EXPECT_NE(bad_arch.error().message.find("unknown arch 'zz'"), std::string::npos);

  auto bad_type = parse_gpu_database(spec_with(R"(, "source": "s", "sm_count": "many")"), "t.json");
  ASSERT_FALSE(bad_type.has_value());
  EXPECT_NE(bad_type.error().message.find("field 'sm_count' must be an integer"), std::string::npos)
      << bad_type.error().message;

  auto bad_dtype =
      parse_gpu_database(spec_with(R"(, "source": "s", "flop_per_clock_per_sm": {"bf17": 1})"), "t");
  ASSERT_FALSE(bad_dtype.has_value());
  EXPECT_NE(bad_dtype.error().message.find("unknown dtype 'bf17'"), std::string::npos);
}

}  // namespace
}  // namespace solscope::ceiling
