// parse_cgroup and read_process_info over the cgroup fixture tree (tests/data/workload/cgroup, README.md
// there): every runtime and cgroup driver layout, cgroup v1 multi-line and v2 "0::" files.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "workload/process_info.hpp"
#include "workload_test_support.hpp"

namespace solscope::workload {
namespace {

auto cgroup_root() -> std::filesystem::path {
  return test_support::data_dir() / "workload" / "cgroup";
}

auto read_fixture(std::int32_t pid) -> std::string {
  std::ifstream in(cgroup_root() / std::to_string(pid) / "cgroup", std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The fixture's ids: container id "hh" x 32 and pod UID "000000hh-0b4d-4e5f-8a9b-0000000000hh", hh the PID
/// in hex.
auto container_of(std::int32_t pid) -> std::string {
  std::ostringstream hex;
  hex << std::hex << pid;
  std::string out;
  for (int i = 0; i < 32; ++i) out += hex.str();
  return out;
}
auto pod_of(std::int32_t pid) -> std::string {
  std::ostringstream hex;
  hex << std::hex << pid;
  return "000000" + hex.str() + "-0b4d-4e5f-8a9b-0000000000" + hex.str();
}

struct Layout {
  std::int32_t pid;
  const char* what;
  bool container;  ///< the file names a container
  bool pod;        ///< the file names a Kubernetes pod
};

class CgroupLayoutTest : public ::testing::TestWithParam<Layout> {};

TEST_P(CgroupLayoutTest, finds_the_container_and_pod) {
  const Layout& layout = GetParam();
  const std::string text = read_fixture(layout.pid);
  ASSERT_FALSE(text.empty()) << layout.what;
  const std::string container = layout.container ? container_of(layout.pid) : "";
  const std::string pod = layout.pod ? pod_of(layout.pid) : "";
  const CgroupIds ids = parse_cgroup(text);
  EXPECT_EQ(ids.container_id, container) << layout.what;
  EXPECT_EQ(ids.pod_uid, pod) << layout.what;
  const ProcessInfo info = read_process_info(cgroup_root(), layout.pid, test_support::fake_user_name);
  EXPECT_EQ(info.container_id, container) << layout.what;
  EXPECT_EQ(info.pod_uid, pod) << layout.what;
}

INSTANTIATE_TEST_SUITE_P(
    Runtimes, CgroupLayoutTest,
    ::testing::Values(Layout{101, "containerd, cgroupfs driver, v1 (first line at the root)", true, true},
                      Layout{102, "containerd, cgroupfs driver, v2", true, true},
                      Layout{103, "containerd, systemd driver, v2", true, true},
                      Layout{104, "containerd, systemd driver, v1", true, true},
                      Layout{105, "CRI-O, systemd driver, v2", true, true},
                      Layout{106, "CRI-O conmon: the pod, no container", false, true},
                      Layout{107, "CRI-O, cgroupfs driver, v1", true, true},
                      Layout{108, "Guaranteed QoS pod slice", true, true},
                      Layout{109, "kubelet's own slice (kind)", true, true},
                      Layout{110, "Docker, cgroupfs driver, v1", true, false},
                      Layout{111, "Docker, systemd driver, v2", true, false},
                      Layout{112, "Docker, hybrid v1 + v2", true, false},
                      Layout{113, "podman rootful", true, false}, Layout{114, "podman rootless", true, false},
                      Layout{115, "podman pod: not a Kubernetes pod", true, false},
                      Layout{116, "host session, v2", false, false},
                      Layout{117, "host session, v1", false, false}),
    [](const ::testing::TestParamInfo<Layout>& param) { return "pid" + std::to_string(param.param.pid); });

}  // namespace
}  // namespace solscope::workload
