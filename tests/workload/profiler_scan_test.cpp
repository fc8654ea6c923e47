// The profiler scan (src/workload/profiler_scan.hpp) over fake /proc trees written by each test: Nsight CLIs
// by name, Nsight's injection libraries and DCGM's profiling module in maps, the device narrowing of
// CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES, and the processes it must skip.
#include "workload/profiler_scan.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/scratch_dir.hpp"

namespace solscope::workload {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr const char* kLibcudaMaps =
    "55d0c0a00000-55d0c0a21000 r--p 00000000 fd:01 1311 /usr/bin/python3.12\n"
    "7f1c2a000000-7f1c2b800000 r-xp 00000000 fd:01 2622 /usr/lib/x86_64-linux-gnu/libcuda.so.570.86.15\n";

/// One process of a fake /proc: files written as given ("" = not written).
struct FakeProcess {
  int pid = 0;
  std::string comm;
  std::string cmdline;  ///< NUL-separated, as the kernel writes it
  std::string maps;
  std::string environ;  ///< NUL-separated
};

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

void add_process(const std::filesystem::path& root, const FakeProcess& p) {
  const auto dir = root / std::to_string(p.pid);
  std::filesystem::create_directories(dir);
  if (!p.comm.empty()) write_file(dir / "comm", p.comm + "\n");
  write_file(dir / "cmdline", p.cmdline);
  if (!p.maps.empty()) write_file(dir / "maps", p.maps);
  if (!p.environ.empty()) write_file(dir / "environ", p.environ);
}

auto args(std::initializer_list<std::string> parts) -> std::string {
  std::string out;
  for (const auto& part : parts) out += part + std::string(1, '\0');
  return out;
}

auto gpu(std::uint32_t index, std::string uuid) -> core::DeviceInfo {
  core::DeviceInfo d;
  d.index = index;
  d.uuid = std::move(uuid);
  d.chip = "GH100";
  return d;
}

auto two_gpus() -> std::vector<core::DeviceInfo> {
  return {gpu(0, "GPU-aaaa1111-2222-3333-4444-555566667777"),
          gpu(1, "GPU-bbbb1111-2222-3333-4444-555566667777")};
}

TEST(ProfilerScanTest, ncu_and_nsys_are_found_by_name_and_reach_every_device) {
  testing::ScratchDir proc("solscope-proc");
  add_process(proc.path(),
              {.pid = 4242,
               .comm = "ncu",
               .cmdline = args({"/usr/local/cuda/bin/ncu", "--set", "full", "python3", "train.py"})});
  add_process(proc.path(), {.pid = 4300, .comm = "nsys", .cmdline = args({"nsys", "profile", "./app"})});
  const auto seen = scan_profilers(proc.path(), two_gpus());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].reason, core::PmPauseReason::kProfiler);
  EXPECT_EQ(seen[0].what, "ncu (pid 4242)");
  EXPECT_THAT(seen[0].devices, IsEmpty());  // no environ: every device
  EXPECT_EQ(seen[1].what, "nsys (pid 4300)");
}

TEST(ProfilerScanTest, names_of_the_tools_by_comm_or_first_argument) {
  EXPECT_EQ(profiler_by_name("ncu", ""), ProfilerKind::kNsightCompute);
  EXPECT_EQ(profiler_by_name("nv-nsight-cu-cl", ""), ProfilerKind::kNsightCompute);  // comm keeps 15 bytes
  EXPECT_EQ(profiler_by_name("bash", "nv-nsight-cu-cli"), ProfilerKind::kNsightCompute);
  EXPECT_EQ(profiler_by_name("", "nsys"), ProfilerKind::kNsightSystems);
  EXPECT_EQ(profiler_by_name("ncu-ui", "ncu-ui"), ProfilerKind::kNone);  // the GUI alone profiles nothing
  EXPECT_EQ(profiler_by_name("python3", "python3"), ProfilerKind::kNone);
}

TEST(ProfilerScanTest, a_process_with_nsight_injection_libraries_mapped_is_a_profiler) {
  testing::ScratchDir proc("solscope-proc");
  add_process(
      proc.path(),
      {.pid = 77,
       .comm = "python3",
       .cmdline = args({"python3", "train.py"}),
       .maps = std::string(kLibcudaMaps) +
               "7f1c30000000-7f1c30400000 r-xp 00000000 fd:01 99 /opt/nvidia/nsight-compute/2025.1.0/target/"
               "linux-desktop-glibc_2_11_3-x64/libInterceptorInjectionTarget.so\n"});
  add_process(proc.path(),
              {.pid = 78,
               .comm = "app",
               .cmdline = args({"./app"}),
               .maps = std::string(kLibcudaMaps) +
                       "7f1c40000000-7f1c40800000 r-xp 00000000 fd:01 98 /opt/nvidia/nsight-systems/"
                       "2024.6.1/target-linux-x64/libToolsInjection64.so\n"});
  add_process(proc.path(),
              {.pid = 79, .comm = "python3", .cmdline = args({"python3", "serve.py"}), .maps = kLibcudaMaps});
  const auto seen = scan_profilers(proc.path(), two_gpus());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].reason, core::PmPauseReason::kProfiler);
  EXPECT_EQ(seen[0].what, "python3 (pid 77) with Nsight's injection library");
  EXPECT_EQ(seen[1].what, "app (pid 78) with Nsight's injection library");
}

TEST(ProfilerScanTest, dcgm_host_engine_counts_only_with_its_profiling_module_loaded) {
  testing::ScratchDir proc("solscope-proc");
  const std::string engine_maps =
      "5600aa000000-5600aa200000 r-xp 00000000 fd:01 10 /usr/bin/nv-hostengine\n"
      "7f0000000000-7f0000400000 r-xp 00000000 fd:01 11 /usr/lib/x86_64-linux-gnu/libdcgm.so.4.2.3\n";
  add_process(proc.path(),
              {.pid = 17,
               .comm = "nv-hostengine",
               .cmdline = args({"/usr/bin/nv-hostengine", "-n"}),
               .maps = engine_maps + "7f0000800000-7f0000a00000 r-xp 00000000 fd:01 12 "
                                     "/usr/lib/x86_64-linux-gnu/libdcgmmoduleprofiling.so.4.2.3\n"});
  add_process(
      proc.path(),
      {.pid = 18, .comm = "nv-hostengine", .cmdline = args({"/usr/bin/nv-hostengine"}), .maps = engine_maps});
  const auto seen = scan_profilers(proc.path(), two_gpus());
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].reason, core::PmPauseReason::kDcgm);
  EXPECT_EQ(seen[0].what, "nv-hostengine (pid 17) with DCGM's profiling module");
}

TEST(ProfilerScanTest, kernel_threads_gone_and_unreadable_processes_are_skipped) {
  testing::ScratchDir proc("solscope-proc");
  add_process(proc.path(), {.pid = 2, .comm = "kthreadd", .cmdline = ""});  // kernel thread: empty cmdline
  std::filesystem::create_directories(proc.path() / "3");                   // exited between list and read
  add_process(proc.path(), {.pid = 4, .comm = "python3", .cmdline = args({"python3"})});  // maps unreadable
  std::filesystem::create_directories(proc.path() / "self");                              // not a pid
  EXPECT_THAT(scan_profilers(proc.path(), two_gpus()), IsEmpty());
}

TEST(ProfilerScanTest, cuda_visible_devices_narrows_a_profiler_to_the_gpus_it_names) {
  testing::ScratchDir proc("solscope-proc");
  add_process(proc.path(),
              {.pid = 500,
               .comm = "ncu",
               .cmdline = args({"ncu", "./app"}),
               .environ = args({"HOME=/root", "CUDA_VISIBLE_DEVICES=GPU-bbbb1111", "PATH=/usr/bin"})});
  const auto seen = scan_profilers(proc.path(), two_gpus());
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_THAT(seen[0].devices, ElementsAre(1u));
}

TEST(ProfilerScanTest, only_the_visibility_keys_are_read_from_environ) {
  const VisibilityEnv env = parse_visibility_env(
      args({"SECRET_TOKEN=hunter2", "CUDA_VISIBLE_DEVICES=0", "CUDA_DEVICE_ORDER=PCI_BUS_ID",
            "NVIDIA_VISIBLE_DEVICES=all", "CUDA_VISIBLE_DEVICES_X=9"}));
  EXPECT_EQ(env.cuda_visible_devices, "0");
  EXPECT_EQ(env.cuda_device_order, "PCI_BUS_ID");
  EXPECT_EQ(env.nvidia_visible_devices, "all");
}

TEST(ProfilerScanTest, cuda_ordinals_narrow_only_in_pci_bus_order) {
  const auto devices = two_gpus();
  // CUDA's default order is FASTEST_FIRST: ordinal 1 need not be NVML's GPU 1.
  EXPECT_THAT(visible_devices({.cuda_visible_devices = "1"}, devices), IsEmpty());
  EXPECT_THAT(visible_devices({.cuda_visible_devices = "1", .cuda_device_order = "PCI_BUS_ID"}, devices),
              ElementsAre(1u));
  // CUDA stops at the first invalid entry: "0,-1,1" is GPU 0 only.
  EXPECT_THAT(visible_devices({.cuda_visible_devices = "0,-1,1", .cuda_device_order = "PCI_BUS_ID"}, devices),
              ElementsAre(0u));
  // An empty or unknown value cannot be placed: every device.
  EXPECT_THAT(visible_devices({.cuda_visible_devices = ""}, devices), IsEmpty());
  EXPECT_THAT(visible_devices({.cuda_visible_devices = "GPU-ffff"}, devices), IsEmpty());
}

TEST(ProfilerScanTest, nvidia_visible_devices_narrows_by_index_or_uuid) {
  const auto devices = two_gpus();
  EXPECT_THAT(visible_devices({.nvidia_visible_devices = "1"}, devices), ElementsAre(1u));
  EXPECT_THAT(
      visible_devices({.nvidia_visible_devices = "GPU-aaaa1111-2222-3333-4444-555566667777"}, devices),
      ElementsAre(0u));
  EXPECT_THAT(visible_devices({.nvidia_visible_devices = "all"}, devices), IsEmpty());
  EXPECT_THAT(visible_devices({.nvidia_visible_devices = "0,1"}, devices), IsEmpty());  // all of them
  // Inside a container, CUDA ordinals count the container's GPUs, not NVML's: no narrowing by ordinal.
  EXPECT_THAT(
      visible_devices(
          {.cuda_visible_devices = "0", .cuda_device_order = "PCI_BUS_ID", .nvidia_visible_devices = "1"},
          devices),
      ElementsAre(1u));
}

TEST(ProfilerScanTest, a_gpu_uuid_reaches_its_mig_instances) {
  std::vector<core::DeviceInfo> devices = two_gpus();
  for (std::uint32_t i = 2; i < 4; ++i) {
    core::DeviceInfo mig = gpu(i, "MIG-cccc000" + std::to_string(i));
    mig.parent_uuid = devices[1].uuid;
    mig.gpu_index = 1;
    mig.mig_instance_id = static_cast<std::int32_t>(i);
    devices.push_back(mig);
  }
  EXPECT_THAT(visible_devices({.cuda_visible_devices = "GPU-bbbb1111"}, devices), ElementsAre(1u, 2u, 3u));
  EXPECT_THAT(visible_devices({.cuda_visible_devices = "MIG-cccc0003"}, devices), ElementsAre(3u));
}

TEST(ProfilerScanTest, maps_are_read_up_to_the_cap_only) {
  testing::ScratchDir proc("solscope-proc");
  const std::string line = "7f0000000000-7f0000001000 r--p 00000000 fd:01 1 /usr/lib/libfiller.so\n";
  std::string maps;
  while (maps.size() <= kMaxMapsBytesPerProcess) maps += line;
  maps += "7f1000000000-7f1000001000 r-xp 00000000 fd:01 2 /opt/nsys/libToolsInjection64.so\n";
  add_process(proc.path(), {.pid = 9, .comm = "huge", .cmdline = args({"huge"}), .maps = maps});
  EXPECT_THAT(scan_profilers(proc.path(), two_gpus()), IsEmpty());
}

}  // namespace
}  // namespace solscope::workload
