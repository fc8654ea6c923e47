// A MIG instance's spec: the GPU's peaks scaled to the instance's SMs and memory slices
// (ceiling/mig_spec.hpp). The instance figures are those the synthetic NVML gives for an A100-80GB 3g.40gb
// and an H100-80GB 1g.10gb
// (`nvidia-smi mig -lgip` figures, tests/support/fake_nvml_mig.cpp).
#include "ceiling/mig_spec.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "test_support.hpp"

namespace solscope::ceiling {
namespace {

using testing::builtin_gpu;

auto a100_3g40gb() -> core::DeviceInfo {
  core::DeviceInfo d;
  d.index = 2;
  d.gpu_index = 0;
  d.mig_profile = "3g.40gb";
  d.mig_instance_id = 1;
  d.sm_count = 42;
  d.memory_total_bytes = 40192ULL * 1024 * 1024;
  d.mig_sm_share = 42.0 / 98.0;
  d.mig_memory_share = 40192.0 / 80896.0;
  return d;
}

TEST(MigSpecTest, a_whole_gpu_keeps_its_spec) {
  const GpuSpec& a100 = builtin_gpu("A100-SXM4-80GB");
  core::DeviceInfo whole;
  const auto spec = mig_instance_spec(a100, whole);
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->id, a100.id);
  EXPECT_EQ(spec->sm_count, a100.sm_count);
}

TEST(MigSpecTest, an_a100_3g_40gb_has_42_of_108_sms_and_its_memory_slices_bandwidth) {
  const GpuSpec& a100 = builtin_gpu("A100-SXM4-80GB");
  const auto spec = mig_instance_spec(a100, a100_3g40gb());
  ASSERT_TRUE(spec.has_value()) << spec.error().message;
  EXPECT_EQ(spec->id, "A100-SXM4-80GB MIG 3g.40gb");
  EXPECT_EQ(spec->sm_count, 42);
  EXPECT_DOUBLE_EQ(peak_flops_per_s(*spec, Dtype::Bf16, 1410.0) / peak_flops_per_s(a100, Dtype::Bf16, 1410.0),
                   42.0 / 108.0);
  EXPECT_DOUBLE_EQ(spec->memory_bandwidth_bytes_per_s, a100.memory_bandwidth_bytes_per_s * 40192.0 / 80896.0);
  EXPECT_DOUBLE_EQ(spec->memory_bytes, 40192.0 * 1024 * 1024);
  EXPECT_EQ(spec->link_bidir_bytes_per_s, 0.0);
}

TEST(MigSpecTest, an_import_without_nvml_figures_scales_by_the_profile_shares) {
  const GpuSpec& h100 = builtin_gpu("H100-SXM5-80GB");
  core::DeviceInfo d;
  d.gpu_index = 0;
  d.mig_profile = "1g.10gb";
  d.mig_instance_id = 9;
  d.mig_sm_share = 1.0 / 7.0;  // core::mig_shares_from_profile: 1 of 7 compute slices
  d.mig_memory_share = 10.0 / 80.0;
  const auto spec = mig_instance_spec(h100, d);
  ASSERT_TRUE(spec.has_value()) << spec.error().message;
  EXPECT_EQ(spec->sm_count, 19);  // round(132 / 7)
  EXPECT_DOUBLE_EQ(spec->memory_bandwidth_bytes_per_s, h100.memory_bandwidth_bytes_per_s / 8.0);
  EXPECT_DOUBLE_EQ(spec->memory_bytes, h100.memory_bytes / 8.0);
}

TEST(MigSpecTest, an_instance_of_unknown_share_has_no_spec) {
  const GpuSpec& h100 = builtin_gpu("H100-SXM5-80GB");
  core::DeviceInfo d;
  d.gpu_index = 1;
  d.mig_instance_id = 3;
  const auto spec = mig_instance_spec(h100, d);
  ASSERT_FALSE(spec.has_value());
  EXPECT_EQ(spec.error().code, core::ErrorCode::FailedPrecondition);
  EXPECT_EQ(spec.error().message, "the share of the GPU that GPU 1 \u00b7 MIG #3 has is unknown");
}

}  // namespace
}  // namespace solscope::ceiling
