#include "workload/process_info.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <string>

#include "workload/detail/listen_ports.hpp"
#include "workload_test_support.hpp"

namespace solscope::workload {
namespace {

using test_support::fake_user_name;
using test_support::procfs_host;
using ::testing::ElementsAre;

TEST(CgroupTest, docker_cgroup_v2_scope) {
  const CgroupIds ids = parse_cgroup(
      "0::/system.slice/docker-9F2B5C1E8A7D4F3B6E0C2A1D9B8E7F6A5C4D3B2A1F0E9D8C7B6A5F4E3D2C1B0A.scope\n");
  EXPECT_EQ(ids.container_id, "9f2b5c1e8a7d4f3b6e0c2a1d9b8e7f6a5c4d3b2a1f0e9d8c7b6a5f4e3d2c1b0a");
  EXPECT_EQ(ids.pod_uid, "");
}

TEST(CgroupTest, docker_cgroup_v1_path) {
  const CgroupIds ids = parse_cgroup(
      "12:pids:/docker/fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210\n"
      "1:name=systemd:/docker/fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210\n");
  EXPECT_EQ(ids.container_id, "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210");
}

TEST(CgroupTest, kubernetes_cgroupfs_driver_v1) {
  const CgroupIds ids = parse_cgroup(
      "11:memory:/kubepods/burstable/pod0f6b2c1e-4d3a-4b8e-9c7d-2a1b3c4d5e6f/"
      "4f3c2b1a0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b\n0::/\n");
  EXPECT_EQ(ids.container_id, "4f3c2b1a0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b");
  EXPECT_EQ(ids.pod_uid, "0f6b2c1e-4d3a-4b8e-9c7d-2a1b3c4d5e6f");
}

TEST(CgroupTest, kubernetes_systemd_driver_v2_uses_underscores) {
  const CgroupIds ids = parse_cgroup(
      "0::/kubepods.slice/kubepods-besteffort.slice/"
      "kubepods-besteffort-pod7a1c2e3f_0b4d_4e5f_8a9b_0c1d2e3f4a5b.slice/"
      "cri-containerd-aa11bb22cc33dd44ee55ff66aa77bb88cc99dd00ee11ff22aa33bb44cc55dd66.scope\n");
  EXPECT_EQ(ids.pod_uid, "7a1c2e3f-0b4d-4e5f-8a9b-0c1d2e3f4a5b");
  EXPECT_EQ(ids.container_id, "aa11bb22cc33dd44ee55ff66aa77bb88cc99dd00ee11ff22aa33bb44cc55dd66");
}

TEST(CgroupTest, crio_and_podman_scopes) {
  EXPECT_EQ(
      parse_cgroup("0::/kubepods.slice/crio-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
                   ".scope\n")
          .container_id,
      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
  EXPECT_EQ(
      parse_cgroup("0::/machine.slice/libpod-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
                   ".scope/container\n")
          .container_id,
      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
}

TEST(CgroupTest, host_processes_and_conmon_have_no_container) {
  EXPECT_EQ(parse_cgroup("0::/user.slice/user-1000.slice/session-3.scope\n").container_id, "");
  EXPECT_EQ(
      parse_cgroup("0::/machine.slice/libpod-conmon-0123456789abcdef0123456789abcdef0123456789abcdef01234567"
                   "89abcdef.scope\n")
          .container_id,
      "");
  EXPECT_EQ(parse_cgroup("0::/docker/abc\n").container_id, "");  // too short for an id
  EXPECT_EQ(parse_cgroup("garbage without colons").container_id, "");
}

TEST(ProcessInfoTest, parses_status_fields) {
  const StatusFields f = parse_status(
      "Name:\tpython3\nUmask:\t0022\nPid:\t42\nPPid:\t7\nTracerPid:\t0\n"
      "Uid:\t1000\t1000\t1000\t1000\n");
  EXPECT_EQ(f.name, "python3");
  EXPECT_EQ(f.parent_pid, 7);
  ASSERT_TRUE(f.uid.has_value());
  EXPECT_EQ(*f.uid, 1000u);
  EXPECT_FALSE(parse_status("PPid:\tx\n").uid.has_value());
  EXPECT_EQ(parse_status("PPid:\tx\n").parent_pid, 0);
}

TEST(ProcessInfoTest, splits_cmdline_and_drops_trailing_padding) {
  EXPECT_THAT(split_nul(std::string("VLLM::EngineCore\0\0\0\0", 20)), ElementsAre("VLLM::EngineCore"));
  EXPECT_THAT(split_nul(std::string("a\0\0b\0", 5)), ElementsAre("a", "", "b"));
  EXPECT_TRUE(split_nul("").empty());
  EXPECT_EQ(join_command({"python", "train.py", "--epochs", "3"}), "python train.py --epochs 3");
}

TEST(ProcessInfoTest, attributes_a_vllm_worker_on_the_host) {
  const ProcessInfo p = read_process_info(procfs_host(), 1002, fake_user_name);
  EXPECT_EQ(p.pid, 1002);
  EXPECT_EQ(p.parent_pid, 1001);
  EXPECT_EQ(p.user, "alice");
  EXPECT_EQ(p.command, "VLLM::Worker_TP0");
  EXPECT_EQ(p.container_id, "");
  EXPECT_TRUE(p.problems.empty());
}

TEST(ProcessInfoTest, attributes_a_training_script_in_docker) {
  const ProcessInfo p = read_process_info(procfs_host(), 4000, fake_user_name);
  EXPECT_EQ(p.user, "bob");
  EXPECT_EQ(p.command, "python train.py --epochs 3");
  EXPECT_EQ(p.container_id, "9f2b5c1e8a7d4f3b6e0c2a1d9b8e7f6a5c4d3b2a1f0e9d8c7b6a5f4e3d2c1b0a");
}

TEST(ProcessInfoTest, attributes_a_tgi_shard_in_a_kubernetes_pod) {
  const ProcessInfo p = read_process_info(procfs_host(), 3001, fake_user_name);
  EXPECT_EQ(p.user, "root");
  EXPECT_EQ(p.pod_uid, "7a1c2e3f-0b4d-4e5f-8a9b-0c1d2e3f4a5b");
  EXPECT_EQ(p.container_id, "aa11bb22cc33dd44ee55ff66aa77bb88cc99dd00ee11ff22aa33bb44cc55dd66");
}

TEST(ProcessInfoTest, unreadable_files_leave_fields_empty_and_are_noted) {
  const ProcessInfo p = read_process_info(procfs_host(), 6000, fake_user_name);
  EXPECT_EQ(p.pid, 6000);
  EXPECT_TRUE(p.args.empty());
  EXPECT_EQ(p.user, "");
  EXPECT_EQ(p.parent_pid, 0);
  EXPECT_EQ(p.container_id, "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210");
  ASSERT_EQ(p.problems.size(), 2u);
  EXPECT_EQ(p.problems[0], "cmdline: not found");
  EXPECT_THAT(p.problems[1], ::testing::StartsWith("status: "));
  // A PID that does not exist at all: every file is missing, nothing throws.
  EXPECT_EQ(read_process_info(procfs_host(), 999999, fake_user_name).problems.size(), 3u);
}

TEST(ProcessInfoTest, permission_denied_files_leave_fields_empty) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "root reads files of any mode; the directory-as-file case covers this path";
  const std::filesystem::path root = std::filesystem::temp_directory_path() / "solscope_workload_perm";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "1000");
  std::filesystem::copy(procfs_host() / "1000" / "cmdline", root / "1000" / "cmdline");
  std::filesystem::copy(procfs_host() / "1000" / "status", root / "1000" / "status");
  std::filesystem::copy(procfs_host() / "1000" / "cgroup", root / "1000" / "cgroup");
  ::chmod((root / "1000" / "status").c_str(), 0);
  const ProcessInfo p = read_process_info(root, 1000, fake_user_name);
  EXPECT_EQ(p.user, "");
  EXPECT_FALSE(p.command.empty());
  EXPECT_THAT(p.problems, ElementsAre("status: permission denied"));
  std::filesystem::remove_all(root);
}

TEST(ProcessInfoTest, reads_environment_and_children) {
  const std::vector<std::string> env = read_environ(procfs_host(), 3000);
  EXPECT_EQ(env_value(env, "PORT"), "80");
  EXPECT_EQ(env_value(env, "MODEL_ID"), "mistralai/Mixtral-8x7B-v0.1");
  EXPECT_FALSE(env_value(env, "MODEL").has_value());
  EXPECT_TRUE(read_environ(procfs_host(), 1001).empty());
  EXPECT_THAT(child_pids(procfs_host(), 3000), ElementsAre(3001, 3002, 3003));
  EXPECT_THAT(child_pids(procfs_host(), 1001), ElementsAre(1002, 1003));
}

TEST(ProcessInfoTest, environ_values_keeps_only_the_keys_asked_for) {
  constexpr char kText[] = "PATH=/bin\0NOEQUALS\0SLURM_JOB_ID=7\0SLURM_JOB_IDX=8\0SLURM_JOB_ID=9\0EMPTY=\0";
  const std::string_view text(kText, sizeof kText - 1);
  const std::array<std::string_view, 3> keys{"SLURM_JOB_ID", "EMPTY", "MISSING"};
  const auto values = environ_values(text, keys);
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values.at("SLURM_JOB_ID"), "7");  // the first, as the C library's lookup finds it
  EXPECT_EQ(values.at("EMPTY"), "");
  EXPECT_TRUE(environ_values(text, {}).empty());
  EXPECT_TRUE(environ_values("", keys).empty());
}

TEST(ProcessInfoTest, system_user_name_knows_root) {
  EXPECT_EQ(system_user_name(0), "root");
  EXPECT_EQ(system_user_name(4'000'000'000u), "4000000000");
}

TEST(ListenPortsTest, parses_listen_sockets_and_skips_connections) {
  const std::string tcp =
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
      "   0: 00000000:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 50001 1 0 "
      "100\n"
      "   1: 0100007F:7530 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 50002 1 0 "
      "100\n"
      "   2: 0500000A:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 50009 1 0 "
      "100\n"
      "   3: 0100007F:1F40 0100007F:B26E 01 00000000:00000000 00:00000000 00000000  1000        0 50005 1 0 "
      "20\n"
      "   4: garbage\n";
  const std::vector<ListeningSocket> s = parse_proc_net_tcp(tcp, false);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].port, 8000);
  EXPECT_EQ(s[0].address, "0.0.0.0");
  EXPECT_TRUE(s[0].reachable_on_loopback);
  EXPECT_EQ(s[1].port, 30000);
  EXPECT_EQ(s[1].address, "127.0.0.1");
  EXPECT_EQ(s[1].inode, 50002u);
  EXPECT_EQ(s[2].address, "10.0.0.5");
  EXPECT_FALSE(s[2].reachable_on_loopback);
}

TEST(ListenPortsTest, parses_ipv6_wildcard_and_loopback) {
  const std::string tcp6 =
      "  sl  local_address                         remote_address                        st tx_queue\n"
      "   0: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A 0:0 00:0 0 1000 "
      "0 50003\n"
      "   1: 00000000000000000000000001000000:0BB8 00000000000000000000000000000000:0000 0A 0:0 00:0 0 1000 "
      "0 50007\n";
  const std::vector<ListeningSocket> s = parse_proc_net_tcp(tcp6, true);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].address, "::");
  EXPECT_EQ(s[0].port, 8080);
  EXPECT_EQ(s[1].address, "::1");
  EXPECT_TRUE(s[1].reachable_on_loopback);
}

TEST(ListenPortsTest, finds_the_ports_a_process_holds) {
  const std::vector<std::int32_t> vllm{1000};
  const std::vector<ListeningSocket> own = listening_sockets(procfs_host(), vllm);
  ASSERT_EQ(own.size(), 1u);  // the established connection (inode 50005) is not a listener
  EXPECT_EQ(own[0].port, 8000);
  const std::vector<std::int32_t> config_file_vllm{5000};
  const std::vector<ListeningSocket> v6 = listening_sockets(procfs_host(), config_file_vllm);
  ASSERT_EQ(v6.size(), 1u);
  EXPECT_EQ(v6[0].port, 8080);
  EXPECT_TRUE(v6[0].ipv6);
  // TGI: the router child holds the socket; the table is the launcher's own network namespace.
  const std::vector<std::int32_t> tgi{3000, 3003};
  const std::vector<ListeningSocket> router = listening_sockets(procfs_host(), tgi);
  ASSERT_EQ(router.size(), 1u);
  EXPECT_EQ(router[0].port, 80);
  EXPECT_THAT(socket_inodes(procfs_host(), 1000), ElementsAre(50001u, 50005u));
}

TEST(ProcessInfoTest, memoized_user_names_asks_once_per_uid) {
  int calls = 0;
  const UserNameLookup memo = memoized_user_names([&calls](std::uint32_t uid) {
    ++calls;
    return "user" + std::to_string(uid);
  });
  EXPECT_EQ(memo(1000), "user1000");
  EXPECT_EQ(memo(1000), "user1000");
  EXPECT_EQ(memo(0), "user0");
  EXPECT_EQ(calls, 2);
  EXPECT_FALSE(memoized_user_names({}));
}

}  // namespace
}  // namespace solscope::workload
