#include "sources/nvidia/detail/profiling_permission.hpp"

#include <gtest/gtest.h>

#include <string>

#include "support/fake_nvml.hpp"

namespace solscope::nvidia {
namespace {

using testing::FakeProcfsTree;
using testing::nvidia_params;
using testing::status_with_cap_eff;

constexpr std::uint32_t kUser = 1000;
constexpr std::uint64_t kCapSysAdmin = 1ULL << 21;
constexpr std::uint64_t kCapPerfmon = 1ULL << 38;

auto contains(const std::string& text, const std::string& part) -> bool {
  return text.find(part) != std::string::npos;
}

TEST(ProfilingPermissionTest, admin_only_without_caps_is_denied_with_the_fix) {
  const FakeProcfsTree tree(nvidia_params(1), status_with_cap_eff(0));
  const ProfilingPermission p = check_profiling_permission(tree.root(), kUser, 565);
  EXPECT_EQ(p.allowed, ProfilingAllowed::No);
  EXPECT_EQ(p.reason,
            "profiling is restricted to admin users (RmProfilingAdminOnly: 1) and the process is not root "
            "and lacks CAP_SYS_ADMIN");
  EXPECT_TRUE(contains(p.fix, "run solscope as root"));
  EXPECT_TRUE(contains(p.fix, "sudo setcap cap_perfmon,cap_sys_admin+ep $(which solscope)"));
  EXPECT_TRUE(contains(p.fix, "options nvidia NVreg_RestrictProfilingToAdminUsers=0"));
  EXPECT_TRUE(contains(p.fix, "/etc/modprobe.d/"));
  EXPECT_TRUE(contains(p.fix, "initramfs"));
  EXPECT_TRUE(contains(p.fix, "reboot"));
  EXPECT_TRUE(contains(p.fix, "classic utilization, clocks, power and memory"));
  EXPECT_TRUE(contains(p.fix, "GPM SOL"));
}

TEST(ProfilingPermissionTest, root_is_allowed_even_when_admin_only) {
  const FakeProcfsTree tree(nvidia_params(1), status_with_cap_eff(0));
  const ProfilingPermission p = check_profiling_permission(tree.root(), 0, 550);
  EXPECT_EQ(p.allowed, ProfilingAllowed::Yes);
  EXPECT_EQ(p.reason, "running as root");
  EXPECT_TRUE(p.fix.empty());
}

TEST(ProfilingPermissionTest, cap_sys_admin_is_allowed) {
  const FakeProcfsTree tree(nvidia_params(1), status_with_cap_eff(kCapSysAdmin));
  const ProfilingPermission p = check_profiling_permission(tree.root(), kUser, 535);
  EXPECT_EQ(p.allowed, ProfilingAllowed::Yes);
  EXPECT_EQ(p.reason, "the process has CAP_SYS_ADMIN");
}

TEST(ProfilingPermissionTest, cap_perfmon_counts_only_from_driver_565) {
  const FakeProcfsTree tree(nvidia_params(1), status_with_cap_eff(kCapPerfmon));
  const ProfilingPermission old_driver = check_profiling_permission(tree.root(), kUser, 560);
  EXPECT_EQ(old_driver.allowed, ProfilingAllowed::No);
  EXPECT_TRUE(contains(old_driver.reason, "CAP_PERFMON counts only from driver R565 (this driver: R560)"));
  const ProfilingPermission new_driver = check_profiling_permission(tree.root(), kUser, 565);
  EXPECT_EQ(new_driver.allowed, ProfilingAllowed::Yes);
  EXPECT_EQ(new_driver.reason, "the process has CAP_PERFMON and the driver is R565");
}

TEST(ProfilingPermissionTest, open_profiling_is_allowed_for_everyone) {
  const FakeProcfsTree tree(nvidia_params(0), status_with_cap_eff(0));
  const ProfilingPermission p = check_profiling_permission(tree.root(), kUser, 550);
  EXPECT_EQ(p.allowed, ProfilingAllowed::Yes);
  EXPECT_EQ(p.reason, "profiling is open to all users (RmProfilingAdminOnly: 0)");
}

TEST(ProfilingPermissionTest, missing_params_file_is_unknown) {
  const FakeProcfsTree tree(std::nullopt, status_with_cap_eff(0));
  const ProfilingPermission p = check_profiling_permission(tree.root(), kUser, 565);
  EXPECT_EQ(p.allowed, ProfilingAllowed::Unknown);
  EXPECT_EQ(p.reason,
            "cannot read /proc/driver/nvidia/params (NVIDIA driver not loaded, or not visible here)");
  EXPECT_FALSE(p.fix.empty());
}

TEST(ProfilingPermissionTest, params_without_the_line_is_unknown) {
  const FakeProcfsTree tree(std::string("EnableMSI: 1\n"), std::nullopt);
  const ProfilingPermission p = check_profiling_permission(tree.root(), kUser, 565);
  EXPECT_EQ(p.allowed, ProfilingAllowed::Unknown);
  EXPECT_EQ(p.reason, "/proc/driver/nvidia/params has no RmProfilingAdminOnly line");
}

TEST(ProfilingPermissionTest, parses_procfs_lines) {
  EXPECT_EQ(parse_rm_profiling_admin_only("RmProfilingAdminOnly: 1\n"), true);
  EXPECT_EQ(parse_rm_profiling_admin_only("A: 2\nRmProfilingAdminOnly:\t0\r\n"), false);
  EXPECT_EQ(parse_rm_profiling_admin_only("RmProfilingAdminOnlyX: 1\n"), std::nullopt);
  EXPECT_EQ(parse_rm_profiling_admin_only("RmProfilingAdminOnly: yes\n"), std::nullopt);
  EXPECT_EQ(parse_cap_eff("CapInh:\t0\nCapEff:\t000001ffffffffff\n"), 0x1ffffffffffULL);
  EXPECT_EQ(parse_cap_eff("CapEff:\tzz\n"), std::nullopt);
  EXPECT_EQ(parse_cap_eff("Name: x\n"), std::nullopt);
}

TEST(ProfilingPermissionTest, names_verdicts) {
  EXPECT_EQ(to_string(ProfilingAllowed::Yes), "yes");
  EXPECT_EQ(to_string(ProfilingAllowed::No), "no");
  EXPECT_EQ(to_string(ProfilingAllowed::Unknown), "unknown");
}

}  // namespace
}  // namespace solscope::nvidia
