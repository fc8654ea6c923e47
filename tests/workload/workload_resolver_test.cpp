// resolve_gpu over a fake procfs tree built per test and hand-made PodResources maps (the kubelet client is
// tested on its own): who each GPU process is, which source said so, and core::attribute_gpu's verdict.
#include "workload/workload_resolver.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <string>
#include <vector>

#include "workload_test_support.hpp"

namespace solscope::workload {
namespace {

namespace fs = std::filesystem;
using core::WorkloadIdentity;
using core::WorkloadOrigin;
using core::WorkloadSharing;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::string_view kPodA = "0f6b2c1e-4d3a-4b8e-9c7d-2a1b3c4d5e6f";
constexpr std::string_view kPodB = "7a1c2e3f-0b4d-4e5f-8a9b-0c1d2e3f4a5b";
const std::string kContainerA(64, 'a');
const std::string kContainerB = std::string(32, 'b') + std::string(32, 'c');

/// A procfs tree in a temporary directory: one folder per PID with cmdline, status, cgroup and (optionally)
/// environ, in proc(5)'s formats.
class FakeProc {
 public:
  FakeProc() : root_(fs::temp_directory_path() / ("solscope_resolver_" + std::to_string(::getpid()))) {
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  ~FakeProc() { fs::remove_all(root_); }
  FakeProc(const FakeProc&) = delete;
  auto operator=(const FakeProc&) -> FakeProc& = delete;

  /// A process of user `uid` running `cmdline` (arguments separated by spaces) in cgroup `cgroup_path`.
  void add(std::int32_t pid, std::uint32_t uid, const std::string& cmdline, const std::string& cgroup_path) {
    const fs::path dir = root_ / std::to_string(pid);
    fs::create_directories(dir);
    std::string args = cmdline;
    for (char& c : args)
      if (c == ' ') c = '\0';
    write(dir / "cmdline", args + '\0');
    write(dir / "status", "Name:\t" + cmdline.substr(0, cmdline.find(' ')) + "\nPPid:\t1\nUid:\t" +
                              std::to_string(uid) + "\t" + std::to_string(uid) + "\t0\t0\n");
    write(dir / "cgroup", "0::" + cgroup_path + "\n");
  }
  /// `entries` as the NUL-separated environ file.
  void set_environ(std::int32_t pid, const std::vector<std::string>& entries) {
    std::string text;
    for (const std::string& e : entries) text += e + '\0';
    write(root_ / std::to_string(pid) / "environ", text);
  }
  [[nodiscard]] auto root() const -> const fs::path& { return root_; }

 private:
  static void write(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
  fs::path root_;
};

auto pod_cgroup(std::string_view pod_uid, const std::string& container) -> std::string {
  std::string underscored(pod_uid);
  for (char& c : underscored)
    if (c == '-') c = '_';
  return "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + underscored +
         ".slice/cri-containerd-" + container + ".scope";
}
constexpr std::string_view kHostCgroup = "/user.slice/user-1000.slice/session-3.scope";

auto gpu(std::uint32_t index, std::string uuid) -> core::DeviceInfo {
  core::DeviceInfo d;
  d.index = index;
  d.uuid = std::move(uuid);
  return d;
}

auto kubelet(PodResourcesMap map) -> NodeAttribution {
  NodeAttribution node;
  node.pods = std::move(map);
  node.kubelet_note = "kubelet PodResources";
  return node;
}

auto resolve(const core::DeviceInfo& device, const std::vector<ListedProcess>& listed,
             const NodeAttribution& node, const FakeProc& proc) -> ResolvedGpu {
  return resolve_gpu(device, listed, node, proc.root(), test_support::fake_user_name);
}

auto pids(const core::WorkloadShare& w) -> std::vector<std::int32_t> {
  return w.pids;
}

TEST(WorkloadResolverTest, whole_gpu_in_one_pod_is_exclusive_with_kubelet_names_on_every_row) {
  FakeProc proc;
  proc.add(201, 0, "python train.py", pod_cgroup(kPodA, kContainerA));
  proc.add(202, 1000, "python worker.py", pod_cgroup(kPodA, kContainerA));
  const NodeAttribution node = kubelet({{{"GPU-aaaa", {{"trainer-0", "ml", "pytorch"}}}}});
  const ResolvedGpu r = resolve(gpu(0, "GPU-aaaa"),
                                {{.pid = 201, .gpu_memory_bytes = 4096, .sm_pct = 40.0},
                                 {.pid = 202, .gpu_memory_bytes = 1024, .sm_pct = 20.0}},
                                node, proc);
  const WorkloadIdentity pod{.pod = "trainer-0", .pod_namespace = "ml", .container = "pytorch"};
  ASSERT_EQ(r.processes.size(), 2u);
  EXPECT_EQ(r.processes[0].pid, 201);
  EXPECT_EQ(r.processes[0].user, "root");
  EXPECT_EQ(r.processes[0].command, "python train.py");
  EXPECT_EQ(r.processes[0].container_id, kContainerA);
  EXPECT_EQ(r.processes[0].gpu_memory_bytes, 4096u);
  EXPECT_EQ(r.processes[0].sm_pct, 40.0);
  EXPECT_EQ(r.processes[1].user, "alice");
  for (const core::GpuProcess& p : r.processes) {
    EXPECT_EQ(p.workload, pod);
    EXPECT_EQ(p.origin, WorkloadOrigin::kKubelet);
  }
  EXPECT_EQ(r.workloads.sharing, WorkloadSharing::kExclusive);
  ASSERT_EQ(r.workloads.workloads.size(), 1u);
  EXPECT_EQ(r.workloads.workloads[0].id, pod);
  EXPECT_EQ(r.workloads.workloads[0].origin, WorkloadOrigin::kKubelet);
  EXPECT_THAT(pids(r.workloads.workloads[0]), ElementsAre(201, 202));
  EXPECT_EQ(r.workloads.workloads[0].sm_pct, 60.0);
  EXPECT_EQ(r.workloads.workloads[0].fraction, 1.0);
  EXPECT_EQ(r.workloads.note, "kubelet PodResources");
}

TEST(WorkloadResolverTest, mig_device_is_looked_up_by_its_mig_uuid) {
  FakeProc proc;
  proc.add(210, 0, "python infer.py", pod_cgroup(kPodB, kContainerB));
  core::DeviceInfo mig = gpu(8, "MIG-1111");
  mig.parent_uuid = "GPU-aaaa";
  mig.gpu_index = 0;
  mig.mig_instance_id = 1;
  mig.mig_profile = "1g.10gb";
  const NodeAttribution node =
      kubelet({{{"GPU-aaaa", {{"whole-0", "ml", "main"}}}, {"MIG-1111", {{"slice-0", "serving", "vllm"}}}}});
  const ResolvedGpu r = resolve(mig, {{.pid = 210, .sm_pct = 70.0}}, node, proc);
  const WorkloadIdentity slice{.pod = "slice-0", .pod_namespace = "serving", .container = "vllm"};
  ASSERT_EQ(r.processes.size(), 1u);
  EXPECT_EQ(r.processes[0].workload, slice);
  EXPECT_EQ(r.workloads.sharing, WorkloadSharing::kExclusive);
  ASSERT_EQ(r.workloads.workloads.size(), 1u);
  EXPECT_EQ(r.workloads.workloads[0].id, slice);
  EXPECT_THAT(pids(r.workloads.workloads[0]), ElementsAre(210));
}

TEST(WorkloadResolverTest, gpu_allocated_to_a_pod_without_a_process_is_idle_while_allocated) {
  const FakeProc proc;
  const NodeAttribution node = kubelet({{{"GPU-bbbb", {{"idle-0", "research", "notebook"}}}}});
  const ResolvedGpu r = resolve(gpu(1, "GPU-bbbb"), {}, node, proc);
  EXPECT_TRUE(r.processes.empty());
  EXPECT_EQ(r.workloads.sharing, WorkloadSharing::kExclusive);
  ASSERT_EQ(r.workloads.workloads.size(), 1u);
  const core::WorkloadShare& w = r.workloads.workloads[0];
  EXPECT_EQ(w.id, (WorkloadIdentity{.pod = "idle-0", .pod_namespace = "research", .container = "notebook"}));
  EXPECT_EQ(w.origin, WorkloadOrigin::kKubelet);
  EXPECT_TRUE(w.pids.empty());
  EXPECT_EQ(w.sm_pct, 0.0);
  EXPECT_EQ(w.fraction, 1.0);
  // A GPU in no pod and with no process holds no workload.
  EXPECT_EQ(resolve(gpu(2, "GPU-none"), {}, node, proc).workloads.sharing, WorkloadSharing::kNone);
}

TEST(WorkloadResolverTest, time_sliced_pods_are_split_by_sm_share_and_named_by_their_cgroups) {
  FakeProc proc;
  proc.add(301, 0, "python a.py", pod_cgroup(kPodA, kContainerA));
  proc.add(302, 0, "python b.py", pod_cgroup(kPodB, kContainerB));
  const NodeAttribution node = kubelet({{{"GPU-cccc", {{"a-0", "team", "main"}, {"b-0", "team", "main"}}}}});
  const std::vector<ListedProcess> listed{{.pid = 301, .sm_pct = 60.0}, {.pid = 302, .sm_pct = 20.0}};
  const ResolvedGpu r = resolve(gpu(3, "GPU-cccc"), listed, node, proc);
  const WorkloadIdentity a{.pod = "uid:" + std::string(kPodA), .container = "aaaaaaaaaaaa"};
  const WorkloadIdentity b{.pod = "uid:" + std::string(kPodB), .container = "bbbbbbbbbbbb"};
  EXPECT_EQ(r.workloads.sharing, WorkloadSharing::kTimeSliced);
  ASSERT_EQ(r.workloads.workloads.size(), 2u);  // no kubelet allocation: which replica is whose is unknown
  EXPECT_EQ(r.workloads.workloads[0].id, a);
  EXPECT_EQ(r.workloads.workloads[0].origin, WorkloadOrigin::kCgroup);
  EXPECT_EQ(r.workloads.workloads[0].fraction, 0.75);
  EXPECT_EQ(r.workloads.workloads[1].id, b);
  EXPECT_EQ(r.workloads.workloads[1].fraction, 0.25);
  EXPECT_EQ(r.processes[0].workload, a);
  EXPECT_EQ(r.processes[1].origin, WorkloadOrigin::kCgroup);
  EXPECT_EQ(r.workloads.note,
            "kubelet PodResources; 2 containers share this GPU (time-slicing): processes are named by their "
            "cgroups, as the kubelet does not say which process is whose");

  // Without the kubelet's map: the same identities from the cgroups, and the note says why.
  NodeAttribution no_kubelet;
  no_kubelet.kubelet_note = "no kubelet socket at /var/lib/kubelet/pod-resources/kubelet.sock";
  const ResolvedGpu cg = resolve(gpu(3, "GPU-cccc"), listed, no_kubelet, proc);
  EXPECT_EQ(cg.workloads.workloads, r.workloads.workloads);
  EXPECT_EQ(cg.workloads.note,
            "pods from cgroups (no kubelet socket at /var/lib/kubelet/pod-resources/kubelet.sock)");

  // Shared by time-slicing but idle: every holder is an allocation with no process, and no split is known.
  const ResolvedGpu idle = resolve(gpu(3, "GPU-cccc"), {}, node, proc);
  EXPECT_EQ(idle.workloads.sharing, WorkloadSharing::kConcurrent);
  ASSERT_EQ(idle.workloads.workloads.size(), 2u);
  EXPECT_EQ(idle.workloads.workloads[1].id.pod, "b-0");
  EXPECT_EQ(idle.workloads.note, "kubelet PodResources");
}

TEST(WorkloadResolverTest, mps_clients_are_concurrent_without_a_split) {
  FakeProc proc;
  proc.add(310, 0, "python a.py", "/system.slice/docker-" + kContainerA + ".scope");
  proc.add(311, 0, "python b.py", "/system.slice/docker-" + kContainerB + ".scope");
  NodeAttribution node;
  node.kubelet_note = "kubelet PodResources off (SOLSCOPE_KUBELET_SOCKET=off)";
  const ResolvedGpu r = resolve(
      gpu(4, "GPU-dddd"),
      {{.pid = 310, .sm_pct = 30.0, .mps = true}, {.pid = 311, .sm_pct = 10.0, .mps = true}}, node, proc);
  EXPECT_EQ(r.workloads.sharing, WorkloadSharing::kConcurrent);
  ASSERT_EQ(r.workloads.workloads.size(), 2u);
  EXPECT_EQ(r.workloads.workloads[0].id, WorkloadIdentity{.container = "aaaaaaaaaaaa"});
  EXPECT_EQ(r.workloads.workloads[1].id, WorkloadIdentity{.container = "bbbbbbbbbbbb"});
  EXPECT_FALSE(r.workloads.workloads[0].fraction.has_value());
  EXPECT_FALSE(r.workloads.workloads[1].fraction.has_value());
  EXPECT_TRUE(r.processes[0].mps);
  EXPECT_EQ(r.workloads.note, "pods from cgroups (kubelet PodResources off (SOLSCOPE_KUBELET_SOCKET=off))");
}

/// Every string of a result, to prove what it does not hold.
auto all_text(const ResolvedGpu& r) -> std::string {
  std::string out = r.workloads.note;
  auto add = [&out](const WorkloadIdentity& id) {
    out += "|" + id.pod + "|" + id.pod_namespace + "|" + id.container + "|" + id.hpc_job + "|" + id.user;
  };
  for (const core::GpuProcess& p : r.processes) {
    out += "|" + p.user + "|" + p.command + "|" + p.container_id;
    add(p.workload);
  }
  for (const core::WorkloadShare& w : r.workloads.workloads) add(w.id);
  return out;
}

TEST(WorkloadResolverTest, slurm_job_comes_from_two_environ_keys_and_nothing_else_is_kept) {
  FakeProc proc;
  proc.add(401, 1000, "python sim.py", std::string(kHostCgroup));
  proc.set_environ(401, {"PATH=/usr/bin", "SLURM_JOB_ID=4242", "SECRET=hunter2", "SLURM_JOB_USER=carol",
                         "SLURM_JOB_ID=9999"});
  const ResolvedGpu r = resolve(gpu(5, "GPU-eeee"), {{.pid = 401, .sm_pct = 50.0}}, NodeAttribution{}, proc);
  const WorkloadIdentity job{.hpc_job = "4242", .user = "carol"};
  EXPECT_EQ(r.processes[0].workload, job);
  EXPECT_EQ(r.processes[0].origin, WorkloadOrigin::kSlurm);
  EXPECT_EQ(r.processes[0].user, "alice");  // the owner; the job's user is in the identity
  EXPECT_EQ(r.workloads.sharing, WorkloadSharing::kExclusive);
  EXPECT_EQ(r.workloads.workloads[0].id, job);
  EXPECT_EQ(r.workloads.note, "");
  const std::string text = all_text(r);
  EXPECT_THAT(text, Not(HasSubstr("SECRET")));
  EXPECT_THAT(text, Not(HasSubstr("hunter2")));
  EXPECT_THAT(text, Not(HasSubstr("/usr/bin")));
  // The helper itself: only the keys asked for, the first of a repeated key.
  const std::array<std::string_view, 2> keys{kSlurmJobIdKey, kSlurmJobUserKey};
  const auto env = read_environ_keys(proc.root(), 401, keys);
  ASSERT_TRUE(env.has_value());
  EXPECT_EQ(env->size(), 2u);
  EXPECT_EQ(env->at("SLURM_JOB_ID"), "4242");
  EXPECT_EQ(env->at("SLURM_JOB_USER"), "carol");
  EXPECT_EQ(read_environ_keys(proc.root(), 999, keys).error().code, core::ErrorCode::NotFound);
}

TEST(WorkloadResolverTest, read_environ_off_never_opens_environ) {
  FakeProc proc;
  proc.add(402, 1000, "python sim.py", std::string(kHostCgroup));
  proc.set_environ(402, {"SLURM_JOB_ID=4242"});
  proc.add(403, 1001, "python other.py", std::string(kHostCgroup));
  fs::create_directories(proc.root() / "403" / "environ");  // opening it would be noted as unavailable
  NodeAttribution node;
  const std::vector<ListedProcess> listed{{.pid = 402, .sm_pct = 10.0}, {.pid = 403, .sm_pct = 10.0}};
  const ResolvedGpu on = resolve(gpu(5, "GPU-eeee"), listed, node, proc);
  EXPECT_EQ(on.processes[0].workload.hpc_job, "4242");
  EXPECT_EQ(on.workloads.note, "pid 403: environ: unavailable");
  node.read_environ = false;
  const ResolvedGpu off = resolve(gpu(5, "GPU-eeee"), listed, node, proc);
  EXPECT_EQ(off.processes[0].workload, WorkloadIdentity{.user = "alice"});
  EXPECT_EQ(off.processes[0].origin, WorkloadOrigin::kProcess);
  EXPECT_EQ(off.processes[1].workload, WorkloadIdentity{.user = "bob"});
  EXPECT_EQ(off.workloads.note, "");  // environ was never opened
  EXPECT_EQ(off.workloads.sharing, WorkloadSharing::kTimeSliced);
}

TEST(WorkloadResolverTest, unreadable_process_stays_unknown_with_the_reason) {
  FakeProc proc;
  const ResolvedGpu r =
      resolve(gpu(6, "GPU-ffff"), {{.pid = 999, .gpu_memory_bytes = 512}}, NodeAttribution{}, proc);
  ASSERT_EQ(r.processes.size(), 1u);
  EXPECT_EQ(r.processes[0].origin, WorkloadOrigin::kNone);
  EXPECT_TRUE(r.processes[0].workload.empty());
  EXPECT_EQ(r.processes[0].gpu_memory_bytes, 512u);
  EXPECT_EQ(r.workloads.workloads[0].origin, WorkloadOrigin::kNone);
  EXPECT_EQ(r.workloads.note,
            "pid 999: cmdline: not found, status: not found, cgroup: not found, environ: not found");
  // The note names a few processes, then counts the rest.
  const ResolvedGpu many =
      resolve(gpu(6, "GPU-ffff"), {{.pid = 991}, {.pid = 992}, {.pid = 993}, {.pid = 994}, {.pid = 995}},
              NodeAttribution{.read_environ = false}, proc);
  EXPECT_EQ(
      many.workloads.note,
      "pid 991: cmdline: not found, status: not found, cgroup: not found; pid 992: cmdline: not found, "
      "status: not found, cgroup: not found; pid 993: cmdline: not found, status: not found, cgroup: not "
      "found; 2 more");
}

}  // namespace
}  // namespace solscope::workload
