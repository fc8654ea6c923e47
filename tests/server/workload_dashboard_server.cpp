// A SYNTHETIC daemon for the dashboard's browser test (tests/integration/dashboard_test.mjs, part
// "workloads" and "iteration"): server::Server over a LiveState whose GPUs hold workloads and training
// iterations, as `solscope serve` serves its own, until SIGTERM or SIGINT. No GPU measured these figures; the
// API says synthetic.
//
//   solscope_workload_dashboard_server      (writes "listening on http://127.0.0.1:PORT" to stderr)
//
// GPU 0: pod ml/train-0/trainer alone (exclusive); GPU 1: ml/infer-a/server (SM 30 %) and web/front/srv
// (SM 10 %) time-sliced, 0.75 / 0.25; GPU 2: no workload; GPU 3: ml/train-0/trainer again (a pod with two
// GPUs). 60 s of 100 ms samples each: Compute SOL (tensor) 40, 50, 60, 70 % and Memory SOL (DRAM) 20, 30, 40,
// 50 %. Iterations (LiveState::set_iteration, as a daemon's estimate): GPU 0 a 0.5 s iteration (compute
// 0.375, memory 0.125, communication 0.25, idle 0.25 of it; the interconnect busy 25 %, 12.5 % exposed); GPU
// 3 a 0.625 s one (compute 0.75, memory 0.125, communication 0.125; busy 25 %, 12.5 % exposed): the straggler
// of pod train-0; GPU 1 not periodic ("no repeat found"), GPU 2 not periodic (too few samples).
#include <pthread.h>

#include <array>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "core/iteration.hpp"
#include "core/live_state.hpp"
#include "core/workload.hpp"
#include "server/server.hpp"

namespace {

using namespace solscope;

constexpr std::uint32_t kGpus = 4;
constexpr std::int64_t kT0 = 1'735'689'600'000'000'000;  // 2025-01-01T00:00:00Z
constexpr std::int64_t kSampleNs = 100'000'000;
constexpr int kSamples = 600;

auto device(std::uint32_t index) -> core::DeviceState {
  core::DeviceState d;
  d.info.index = index;
  d.info.uuid = "GPU-SYNTHETIC-" + std::to_string(index);
  d.info.name = "SYNTHETIC test GPU";
  d.info.chip = "GH100";
  d.info.sm_count = 132;
  d.info.pci_bus_id = "00000000:1" + std::to_string(index) + ":00.0";
  d.source = core::SourceKind::Replay;
  return d;
}

auto pod(std::string ns, std::string name, std::string container) -> core::WorkloadIdentity {
  return {.pod = std::move(name), .pod_namespace = std::move(ns), .container = std::move(container)};
}

/// A process of `id` on a GPU, and the same as the attribution sees it.
auto process(std::int32_t pid, const core::WorkloadIdentity& id, double sm_pct) -> core::GpuProcess {
  return {.pid = pid,
          .user = "root",
          .gpu_memory_bytes = 1ULL << 30,
          .command = "python serve.py",
          .workload = id,
          .origin = core::WorkloadOrigin::kKubelet,
          .sm_pct = sm_pct};
}

void set_workloads(core::LiveState& state, std::uint32_t index, std::vector<core::GpuProcess> processes) {
  std::vector<core::ProcessWorkload> list;
  for (const core::GpuProcess& p : processes)
    list.push_back({.pid = p.pid, .id = p.workload, .origin = p.origin, .sm_pct = p.sm_pct, .mps = p.mps});
  state.set_processes(index, std::move(processes));
  state.set_workloads(index, core::attribute_gpu(list, {}, "kubelet PodResources (SYNTHETIC)"));
}

/// A periodic iteration of `period_s` whose strip holds each part's share of its bins, in part order
/// (compute, memory, communication, latency, idle).
auto iteration(double period_s, std::array<double, core::kIterationPartCount> parts)
    -> core::IterationEstimate {
  core::IterationEstimate e;
  e.periodic = true;
  e.period_s = period_s;
  e.jitter_s = 0.00390625;
  e.confidence = 0.875;
  e.window_ns = core::kIterationWindowNs;
  e.estimated_at_ns = kT0 + kSamples * kSampleNs;
  e.part_ratio = parts;
  e.compute_ratio = parts[0] + parts[1] + parts[3];  // compute, memory, latency
  e.communication_ratio = 0.25;
  e.exposed_communication_ratio = 0.125;
  e.communication_offset_s = 0.0625;
  std::size_t bin = 0;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const auto bins = static_cast<std::size_t>(parts[p] * static_cast<double>(core::kIterationStripBins));
    for (std::size_t i = 0; i < bins && bin < e.strip.size(); ++i)
      e.strip[bin++] = static_cast<core::IterationPart>(p);
  }
  return e;
}

auto not_periodic(std::string_view note) -> core::IterationEstimate {
  core::IterationEstimate e;
  e.confidence = 0.25;
  e.note = note;
  return e;
}

auto sample(std::uint32_t index, int i) -> core::SolSample {
  core::SolSample s;
  s.device_index = index;
  s.t_start_ns = kT0 + std::int64_t{i} * kSampleNs;
  s.t_end_ns = s.t_start_ns + kSampleNs;
  s.source = core::SourceKind::Replay;
  s.compute_sol_pct = 40.0 + 10.0 * index;
  s.compute_pipe = core::Pipe::Tensor;
  s.pipe_pct[static_cast<std::size_t>(core::Pipe::Tensor)] = s.compute_sol_pct;
  s.memory_sol_pct = 20.0 + 10.0 * index;
  s.memory_path = core::MemPath::Dram;
  s.path_pct[static_cast<std::size_t>(core::MemPath::Dram)] = s.memory_sol_pct;
  s.bound = core::Bound::Latency;
  return s;
}

}  // namespace

auto main() -> int {
  // Every thread the server starts inherits the mask, so only sigwait() below takes these signals.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  core::LiveState state;
  std::vector<core::DeviceState> devices;
  for (std::uint32_t d = 0; d < kGpus; ++d) devices.push_back(device(d));
  state.set_devices(std::move(devices));
  const core::WorkloadIdentity train = pod("ml", "train-0", "trainer");
  set_workloads(state, 0, {process(100, train, 80.0)});
  set_workloads(
      state, 1,
      {process(200, pod("ml", "infer-a", "server"), 30.0), process(201, pod("web", "front", "srv"), 10.0)});
  set_workloads(state, 3, {process(101, train, 70.0)});
  state.set_iteration(0, iteration(0.5, {0.375, 0.125, 0.25, 0.0, 0.25}));
  state.set_iteration(1, not_periodic("no repeat found"));
  state.set_iteration(2, not_periodic("too few samples"));
  state.set_iteration(3, iteration(0.625, {0.75, 0.125, 0.125, 0.0, 0.0}));
  for (int i = 0; i < kSamples; ++i) {
    for (std::uint32_t d = 0; d < kGpus; ++d) state.add(sample(d, i));
  }

  server::ServerOptions options;
  options.host = "127.0.0.1";
  options.port = 0;
  options.api = {.hostname = "node-17",
                 .version = "test",
                 .source_description = "SYNTHETIC workloads (tests/server/workload_dashboard_server.cpp)",
                 .synthetic = true};
  auto started = server::Server::start(std::move(options), state);
  if (!started) {
    std::fprintf(stderr, "solscope_workload_dashboard_server: %s\n", started.error().describe().c_str());
    return 1;
  }
  std::fprintf(stderr, "listening on http://127.0.0.1:%u\n", static_cast<unsigned>((*started)->port()));
  std::fflush(stderr);
  int received = 0;
  sigwait(&stop_signals, &received);
  (*started)->stop();
  return 0;
}
