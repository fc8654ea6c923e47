// The cost of one process refresh's attribution (issue 24), the part that runs on the refresher's thread
// every 2 s (runtime::attribute_listings: procfs, cgroups, the Slurm keys of environ, the kubelet map and
// core::attribute_gpu per GPU), for 8 GPUs and 200 processes. Everything is SYNTHETIC:
// - a /proc tree of 200 processes (tests/support/fake_proc_tree.hpp), each with status, cmdline, cgroup and a
//   2 KiB environ; a third in Kubernetes pods (systemd cgroup driver, containerd), a third in Docker
//   containers, a third host processes of which half carry SLURM_JOB_ID;
// - 25 processes per GPU with SM shares (time-sliced), and a fixed PodResourcesMap (no gRPC: the kubelet's
//   own answer takes milliseconds and is not solscope's CPU);
// Figures: BM_RefreshAttribution, and the baseline BM_ReadSameFilesOnly in the same run (the same four files
// of every process read whole, nothing parsed). Both print `ms_per_refresh` and `core_pct_at_one_per_2s`, the
// share of one core the refresh takes at its default period (WorkloadRefreshOptions::period).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "runtime/process_refresh.hpp"
#include "support/fake_proc_tree.hpp"

namespace {

using solscope::app::DeviceListing;
using solscope::app::NodeFacts;
using solscope::app::WorkloadRefreshOptions;

constexpr int kGpus = 8;
constexpr int kProcesses = 200;
constexpr std::int32_t kFirstPid = 10'000;
constexpr std::size_t kEnvironBytes = 2048;

auto gpu_uuid(int gpu) -> std::string {
  return "GPU-" + std::to_string(10'000'000 + gpu) + "-0000-4000-8000-000000000000";
}

auto hex64(int n) -> std::string {
  std::string id = std::to_string(1'000'000 + n);
  while (id.size() < 64) id += "abcdef0123456789";
  return id.substr(0, 64);
}

auto synthetic_process(int i) -> solscope::testing::FakeProc {
  solscope::testing::FakeProc p;
  p.pid = kFirstPid + i;
  p.uid = static_cast<std::uint32_t>(2000 + i % 7);
  p.args = {"python3",  "-m",     "torch.distributed.run", "--nproc-per-node", "8",
            "train.py", "--rank", std::to_string(i)};
  if (i % 3 == 0) {  // a Kubernetes pod, systemd driver, containerd
    p.cgroup = "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234abcd_0000_4000_8000_" +
               std::to_string(100'000'000'000 + i / 8) + ".slice/cri-containerd-" + hex64(i) + ".scope\n";
  } else if (i % 3 == 1) {  // a Docker container
    p.cgroup = "0::/system.slice/docker-" + hex64(i) + ".scope\n";
  } else if (i % 2 == 0) {  // a Slurm job step
    p.environ.push_back("SLURM_JOB_ID=" + std::to_string(400'000 + i / 8));
    p.environ.push_back("SLURM_JOB_USER=user" + std::to_string(i % 7));
  }
  std::size_t bytes = 0;
  for (const auto& e : p.environ) bytes += e.size() + 1;
  for (int k = 0; bytes < kEnvironBytes; ++k) {
    p.environ.push_back("VAR_" + std::to_string(k) + "=/opt/conda/lib/python3.11/site-packages/nvidia/lib");
    bytes += p.environ.back().size() + 1;
  }
  return p;
}

/// The SYNTHETIC node: its /proc, GPUs, NVML listings and node facts, built once.
struct Node {
  solscope::testing::FakeProcTree tree;
  std::vector<solscope::core::DeviceInfo> devices;
  std::vector<DeviceListing> listings;
  NodeFacts facts;
  WorkloadRefreshOptions options;

  Node() {
    for (int i = 0; i < kProcesses; ++i) tree.add(synthetic_process(i));
    facts.node.pods.emplace();
    for (int gpu = 0; gpu < kGpus; ++gpu) {
      solscope::core::DeviceInfo info;
      info.index = static_cast<std::uint32_t>(gpu);
      info.uuid = gpu_uuid(gpu);
      devices.push_back(info);
      DeviceListing listing{.device = info.index, .processes = {}};
      for (int i = gpu; i < kProcesses; i += kGpus) {
        listing.processes.push_back(solscope::sources::DeviceProcess{
            .pid = kFirstPid + i, .gpu_memory_bytes = 1ULL << 30, .sm_pct = 10.0 + i % 50});
      }
      listings.push_back(std::move(listing));
      if (gpu % 2 == 0) {  // half the GPUs allocated to a pod by the kubelet
        facts.node.pods->by_device[gpu_uuid(gpu)] = {
            {.pod = "trainer-" + std::to_string(gpu), .pod_namespace = "ml-team", .container = "pytorch"}};
      }
    }
    facts.node.kubelet_note = "kubelet PodResources";
    options.procfs_root = tree.root();
  }
};

auto node() -> Node& {
  static Node n;  // NOLINT(cert-err58-cpp): a benchmark program's fixture
  return n;
}

/// Sets the figures every benchmark here prints from the loop's wall time.
void report(benchmark::State& state, std::chrono::steady_clock::duration total) {
  const double iterations = static_cast<double>(state.iterations());
  const double ms =
      std::chrono::duration<double, std::milli>(total).count() / (iterations > 0 ? iterations : 1);
  const double period_ms = std::chrono::duration<double, std::milli>(WorkloadRefreshOptions{}.period).count();
  state.counters["ms_per_refresh"] = ms;
  state.counters["core_pct_at_one_per_2s"] = 100.0 * ms / period_ms;
  state.counters["gpus"] = kGpus;
  state.counters["processes"] = kProcesses;
}

void BM_RefreshAttribution(benchmark::State& state) {
  Node& n = node();
  std::chrono::steady_clock::duration total{};
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    auto resolved = solscope::app::attribute_listings(n.devices, n.listings, n.facts, n.options);
    benchmark::DoNotOptimize(resolved);
    total += std::chrono::steady_clock::now() - start;
  }
  report(state, total);
}
BENCHMARK(BM_RefreshAttribution)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ReadSameFilesOnly(benchmark::State& state) {
  Node& n = node();
  std::chrono::steady_clock::duration total{};
  std::string buffer;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    std::size_t bytes = 0;
    for (const DeviceListing& listing : n.listings) {
      for (const auto& p : listing.processes) {
        const auto dir = n.tree.root() / std::to_string(p.pid);
        for (const char* file : {"status", "cmdline", "cgroup", "environ"}) {
          std::ifstream in(dir / file, std::ios::binary);
          buffer.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
          bytes += buffer.size();
        }
      }
    }
    benchmark::DoNotOptimize(bytes);
    total += std::chrono::steady_clock::now() - start;
  }
  report(state, total);
}
BENCHMARK(BM_ReadSameFilesOnly)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
