#include "sources/nvidia/detail/nvidia_source_plan.hpp"

#include <gtest/gtest.h>

namespace solscope::nvidia {
namespace {

auto verdict(ProfilingAllowed allowed) -> ProfilingPermission {
  return {.allowed = allowed, .reason = "profiling is restricted to admin users (test)", .fix = "the fix"};
}

TEST(NvidiaSourcePlanTest, pm_is_tried_unless_denied_mig_or_absent) {
  EXPECT_TRUE(plan_pm_sampling(0, false, verdict(ProfilingAllowed::Yes), true).try_pm);
  EXPECT_TRUE(plan_pm_sampling(0, false, verdict(ProfilingAllowed::Unknown), true).try_pm);
  const PmChoice denied = plan_pm_sampling(0, false, verdict(ProfilingAllowed::No), true);
  EXPECT_FALSE(denied.try_pm);
  EXPECT_EQ(denied.reason, "PM sampling denied: profiling is restricted to admin users (test)");
  EXPECT_EQ(denied.hint, "the fix");
  EXPECT_FALSE(plan_pm_sampling(3, true, verdict(ProfilingAllowed::Yes), true).try_pm);
  const PmChoice absent = plan_pm_sampling(0, false, verdict(ProfilingAllowed::Yes), false);
  EXPECT_FALSE(absent.try_pm);
  EXPECT_EQ(absent.reason, "PM sampling not available: no CUPTI PM sampler in this build");
}

TEST(NvidiaSourcePlanTest, open_failures_map_to_reasons) {
  EXPECT_EQ(pm_open_failure({core::ErrorCode::PermissionDenied, "x", ""}).reason,
            "PM sampling denied: profiling is restricted to admin users");
  EXPECT_EQ(pm_open_failure({core::ErrorCode::Unavailable, "x", ""}).reason,
            "PM sampling unavailable: counters held by another profiler (DCGM, Nsight, another solscope)");
  EXPECT_EQ(
      pm_open_failure({core::ErrorCode::NotFound, "cannot load libcupti.so.13", "install CUPTI"}).reason,
      "PM sampling failed: cannot load libcupti.so.13");
  EXPECT_EQ(pm_open_failure({core::ErrorCode::NotFound, "m", "install CUPTI"}).hint, "install CUPTI");
}

TEST(NvidiaSourcePlanTest, fallback_status_joins_the_reasons) {
  const PmChoice pm{.try_pm = false, .reason = "PM sampling denied: a", .hint = "fix"};
  const GpmSupportInfo no_gpm{.supported = false, .reason = "b"};
  const auto nvml_only = fallback_status(core::SourceKind::NvmlOnly, pm, no_gpm);
  EXPECT_EQ(nvml_only.reason, "PM sampling denied: a; GPM: b");
  EXPECT_EQ(nvml_only.hint, "fix");
  const auto gpm = fallback_status(core::SourceKind::Gpm, pm, {.supported = true, .reason = {}});
  EXPECT_EQ(gpm.reason, "PM sampling denied: a");
  const auto best = fallback_status(core::SourceKind::PmSampling, pm, no_gpm);
  EXPECT_TRUE(best.reason.empty());
  EXPECT_TRUE(best.hint.empty());
}

TEST(NvidiaSourcePlanTest, select_devices_validates_and_sorts) {
  EXPECT_EQ(*select_devices({}, 3), (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(*select_devices({2, 0, 2}, 3), (std::vector<std::uint32_t>{0, 2}));
  const auto bad = select_devices({3}, 3);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(bad.error().message, "device 3 does not exist: valid indices are 0-2");
  EXPECT_EQ(select_devices({1}, 1).error().message, "device 1 does not exist: the only valid index is 0");
  const auto none = select_devices({}, 0);
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().code, core::ErrorCode::NotFound);
  EXPECT_EQ(none.error().message, "no NVIDIA GPU found");
}

}  // namespace
}  // namespace solscope::nvidia
