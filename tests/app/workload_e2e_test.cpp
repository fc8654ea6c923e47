// Workload attribution end to end (issue 24): a source that lists processes on three GPUs, a SYNTHETIC /proc
// with containerd cgroups, and a SYNTHETIC kubelet serving PodResources List on a Unix socket; the real
// ProcessRefresher asks them all, the LiveState counts each sample's seconds for the workloads it found, and
// /metrics carries dcgm-exporter's pod labels and the per-workload GPU-seconds.
//   GPU 0: one pod (ml/train-0/trainer) holds it, one process: exclusive, kubelet names.
//   GPU 1: two time-slicing replicas in two pods, processes at 60 % and 20 % SM: split 0.75 / 0.25, each
//          process named by its cgroup (the kubelet does not say which replica is whose).
//   GPU 2: allocated to ml/idle-0/main, no process: idle while allocated.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "podresources/v1/api.pb.h"
#include "runtime/live_feed.hpp"
#include "runtime/process_refresh.hpp"
#include "server/detail/metrics.hpp"
#include "support/fake_counter_source.hpp"
#include "support/fake_kubelet.hpp"
#include "support/fake_proc_tree.hpp"

namespace solscope::app {
namespace {

constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kT0 = 1'767'225'600 * kS;  // 2026-01-01T00:00:00Z
const std::vector<std::string> kUuids{"GPU-00000000-0000-4000-8000-0000000000a0",
                                      "GPU-00000000-0000-4000-8000-0000000000b0",
                                      "GPU-00000000-0000-4000-8000-0000000000c0"};
constexpr const char* kPodUidA = "11111111-2222-3333-4444-555555555555";
constexpr const char* kPodUidB = "66666666-7777-8888-9999-000000000000";

auto containerd_cgroup(std::string pod_uid, char id_digit) -> std::string {
  for (char& c : pod_uid) c = c == '-' ? '_' : c;
  return "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + pod_uid +
         ".slice/cri-containerd-" + std::string(64, id_digit) + ".scope\n";
}

void add_holder(v1::ListPodResourcesResponse& answer, const std::string& ns, const std::string& pod,
                const std::string& container, const std::string& device_id) {
  auto* p = answer.add_pod_resources();
  p->set_name(pod);
  p->set_namespace_(ns);
  auto* c = p->add_containers();
  c->set_name(container);
  auto* d = c->add_devices();
  d->set_resource_name("nvidia.com/gpu");
  d->add_device_ids(device_id);
}

auto kubelet_answer() -> v1::ListPodResourcesResponse {
  v1::ListPodResourcesResponse answer;
  add_holder(answer, "ml", "train-0", "trainer", kUuids[0]);
  add_holder(answer, "ml", "infer-a", "server", kUuids[1] + "::0");
  add_holder(answer, "web", "front", "srv", kUuids[1] + "::1");
  add_holder(answer, "ml", "idle-0", "main", kUuids[2]);
  return answer;
}

auto eventually(const std::function<bool()>& done) -> bool {
  for (int i = 0; i < 500 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return done();
}

/// One second of a GPU, classified `bound`.
auto second_of(std::uint32_t device, std::int64_t k, core::Bound bound) -> core::SolSample {
  core::SolSample s;
  s.device_index = device;
  s.t_start_ns = kT0 + k * kS;
  s.t_end_ns = s.t_start_ns + kS;
  s.compute_sol_pct = bound == core::Bound::Idle ? 0.0 : 40.0;
  s.memory_sol_pct = bound == core::Bound::Idle ? 0.0 : 20.0;
  s.bound = bound;
  return s;
}

auto has_line(const std::string& text, const std::string& line) -> bool {
  return text.find(line + "\n") != std::string::npos;
}

TEST(WorkloadEndToEnd, kubelet_cgroups_and_nvml_shares_reach_the_metrics) {
  testing::FakeLister lister(kubelet_answer());
  const testing::FakeKubelet kubelet(lister);
  testing::FakeProcTree tree;
  tree.add({.pid = 101, .uid = 0, .cgroup = containerd_cgroup("aaaaaaaa-0000-0000-0000-000000000000", 'a')});
  tree.add({.pid = 201, .uid = 0, .cgroup = containerd_cgroup(kPodUidA, 'b')});
  tree.add({.pid = 202, .uid = 0, .cgroup = containerd_cgroup(kPodUidB, 'c')});

  testing::FakeCounterSource source;
  source.never_finish = true;
  source.lists_processes = true;
  source.processes[0] = {sources::DeviceProcess{.pid = 101, .gpu_memory_bytes = 1 << 30, .sm_pct = 50.0}};
  source.processes[1] = {sources::DeviceProcess{.pid = 201, .gpu_memory_bytes = 1 << 20, .sm_pct = 60.0},
                         sources::DeviceProcess{.pid = 202, .gpu_memory_bytes = 1 << 20, .sm_pct = 20.0}};
  source.processes[2] = {};
  core::LiveState state;
  std::vector<core::DeviceState> devices(3);
  for (std::uint32_t i = 0; i < 3; ++i) {
    devices[i].info.index = i;
    devices[i].info.uuid = kUuids[i];
    devices[i].info.name = "SYNTHETIC GPU";
  }
  state.set_devices(devices);

  const std::atomic<bool> stop{false};
  BackgroundEngine engine(source, {}, EngineOptions{.poll_interval_ns = 1'000'000}, stop);
  const ProcessRefresher refresher(
      engine, state, {},
      WorkloadRefreshOptions{.period = std::chrono::milliseconds(5),
                             .procfs_root = tree.root(),
                             .kubelet_socket = kubelet.socket(),
                             .user_name = [](std::uint32_t) { return std::string("root"); }});
  ASSERT_TRUE(eventually([&] {
    return state.snapshot(1)->state.workloads.workloads.size() == 2 &&
           !state.snapshot(2)->state.workloads.workloads.empty();
  }));
  EXPECT_GE(lister.calls(), 1);
  const core::GpuWorkloads gpu1 = state.snapshot(1)->state.workloads;
  EXPECT_EQ(gpu1.sharing, core::WorkloadSharing::kTimeSliced);
  EXPECT_EQ(state.snapshot(0)->state.processes.at(0).workload.pod, "train-0");

  // Ten seconds: GPU 0 and 1 busy (latency-bound figures), GPU 2 idle.
  for (std::int64_t k = 0; k < 10; ++k) {
    state.add(second_of(0, k, core::Bound::Latency));
    state.add(second_of(1, k, core::Bound::Latency));
    state.add(second_of(2, k, core::Bound::Idle));
  }
  const std::string text = server::render_metrics(state, server::MetricsContext{.hostname = "node-1"});
  const std::string gpu0 =
      R"(gpu="0",UUID=")" + kUuids[0] + R"(",modelName="SYNTHETIC GPU",hostname="node-1")";
  const std::string gpu1_labels =
      R"(gpu="1",UUID=")" + kUuids[1] + R"(",modelName="SYNTHETIC GPU",hostname="node-1")";
  const std::string gpu2 =
      R"(gpu="2",UUID=")" + kUuids[2] + R"(",modelName="SYNTHETIC GPU",hostname="node-1")";
  EXPECT_TRUE(
      has_line(text, "solscope_gpu_workloads{" + gpu0 +
                         R"(,pod="train-0",namespace="ml",container="trainer",sharing="exclusive"} 1)"))
      << text;
  EXPECT_TRUE(has_line(text, "solscope_workload_gpu_seconds_total{" + gpu0 +
                                 R"(,pod="train-0",namespace="ml",container="trainer",sharing="exclusive",)"
                                 R"(bound="latency"} 10)"))
      << text;
  EXPECT_TRUE(has_line(text, "solscope_workload_gpu_seconds_total{" + gpu1_labels + R"(,pod="uid:)" +
                                 kPodUidA +
                                 R"(",container="bbbbbbbbbbbb",sharing="time_sliced",bound="latency"} 7.5)"))
      << text;
  EXPECT_TRUE(has_line(text, "solscope_workload_gpu_seconds_total{" + gpu1_labels + R"(,pod="uid:)" +
                                 kPodUidB +
                                 R"(",container="cccccccccccc",sharing="time_sliced",bound="latency"} 2.5)"))
      << text;
  EXPECT_TRUE(has_line(text, "solscope_workload_gpu_seconds_total{" + gpu2 +
                                 R"(,pod="idle-0",namespace="ml",container="main",sharing="exclusive",)"
                                 R"(bound="idle"} 10)"))
      << text;
}

}  // namespace
}  // namespace solscope::app
