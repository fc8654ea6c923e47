// MIG shares from profile names (core/mig_profile.hpp): the rule of docs/design/sol-metrics.md "MIG",
// "Imports and labels", against the profiles and sizes of NVIDIA's MIG User Guide ("Supported GPUs",
// "Supported MIG Profiles").
#include <gtest/gtest.h>

#include <cmath>

#include "core/mig_profile.hpp"

namespace solscope::core {
namespace {

TEST(MigProfileTest, profile_names_parse) {
  const auto a = parse_mig_profile_name("3g.40gb");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->compute_slices, 3u);
  EXPECT_DOUBLE_EQ(a->memory_gb, 40.0);
  const auto me = parse_mig_profile_name("1g.10gb+me");
  ASSERT_TRUE(me);
  EXPECT_EQ(me->compute_slices, 1u);
  EXPECT_DOUBLE_EQ(me->memory_gb, 10.0);
  for (const char* bad : {"", "7g", "3g.40", "g.10gb", "0g.10gb", "3g.0gb", "3g.xgb", "MIG 3g.40gb"}) {
    EXPECT_FALSE(parse_mig_profile_name(bad)) << bad;
  }
}

TEST(MigProfileTest, compute_slices_follow_the_supported_gpus_table) {
  EXPECT_EQ(mig_compute_slices_of("NVIDIA A100-SXM4-40GB"), 7u);
  EXPECT_EQ(mig_compute_slices_of("NVIDIA A100 80GB PCIe"), 7u);
  EXPECT_EQ(mig_compute_slices_of("NVIDIA H100 80GB HBM3"), 7u);
  EXPECT_EQ(mig_compute_slices_of("NVIDIA H200"), 7u);
  EXPECT_EQ(mig_compute_slices_of("NVIDIA B200"), 7u);
  EXPECT_EQ(mig_compute_slices_of("NVIDIA A30"), 4u);
  EXPECT_EQ(mig_compute_slices_of("NVIDIA RTX PRO 6000 Blackwell Server Edition"), 4u);
  EXPECT_EQ(mig_compute_slices_of("NVIDIA L40S"), 0u);
  EXPECT_EQ(mig_compute_slices_of(""), 0u);
}

TEST(MigProfileTest, parent_memory_from_the_name_or_the_table) {
  EXPECT_DOUBLE_EQ(mig_parent_memory_gb("NVIDIA H100 80GB HBM3"), 80.0);
  EXPECT_DOUBLE_EQ(mig_parent_memory_gb("NVIDIA A100-SXM4-40GB"), 40.0);
  EXPECT_DOUBLE_EQ(mig_parent_memory_gb("NVIDIA A30"), 24.0);
  EXPECT_DOUBLE_EQ(mig_parent_memory_gb("NVIDIA H200"), 141.0);
  EXPECT_DOUBLE_EQ(mig_parent_memory_gb("NVIDIA H100 NVL"), 94.0);
  EXPECT_DOUBLE_EQ(mig_parent_memory_gb("NVIDIA B200"), 180.0);
  EXPECT_DOUBLE_EQ(mig_parent_memory_gb("NVIDIA GH200 480GB"), 96.0);  // 480 counts the CPU's memory
  EXPECT_DOUBLE_EQ(mig_parent_memory_gb("NVIDIA L40S"), 0.0);
}

TEST(MigProfileTest, shares_are_slices_over_the_gpu) {
  const MigShares h100 = mig_shares_from_profile("3g.40gb", "NVIDIA H100 80GB HBM3");
  EXPECT_DOUBLE_EQ(h100.sm_share, 3.0 / 7.0);
  EXPECT_DOUBLE_EQ(h100.memory_share, 0.5);
  const MigShares a30 = mig_shares_from_profile("1g.6gb", "NVIDIA A30");
  EXPECT_DOUBLE_EQ(a30.sm_share, 0.25);
  EXPECT_DOUBLE_EQ(a30.memory_share, 0.25);
  // dcgm-exporter issue #713 saw "7g.79gb" on an 80 GB A100: just under the whole GPU.
  const MigShares whole = mig_shares_from_profile("7g.79gb", "NVIDIA A100 80GB PCIe");
  EXPECT_DOUBLE_EQ(whole.sm_share, 1.0);
  EXPECT_DOUBLE_EQ(whole.memory_share, 79.0 / 80.0);
  const MigShares unknown_model = mig_shares_from_profile("1g.10gb", "SYNTHETIC GPU");
  EXPECT_TRUE(std::isnan(unknown_model.sm_share));
  EXPECT_TRUE(std::isnan(unknown_model.memory_share));
  const MigShares bad_profile = mig_shares_from_profile("", "NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(std::isnan(bad_profile.sm_share));
  EXPECT_TRUE(std::isnan(bad_profile.memory_share));
}

}  // namespace
}  // namespace solscope::core
