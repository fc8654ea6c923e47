// The SYNTHETIC workloads scenario (issue 24): two GPUs for 20 s at one sample a second, made up so that
// every per-workload figure of `solscope report` is known exactly. Never measured on a GPU.
//   GPU 0, time-sliced the whole time: pod research/train-a/main (pid 101, 60 % SM) and pod
//     serving/infer-b/server (pids 202 and 203, 10 % SM each): fractions 0.75 and 0.25. Samples 0-9: tensor
//     pipe 80 %, DRAM 30 %, GR active 90 %, 400 W (compute-bound); 10-19: 40 %, 70 %, 90 %, 300 W
//     (memory-bound).
//   GPU 1, exclusive: pod batch/etl-c/worker allocated from 0 s with no process (samples 0-7: every figure 0,
//     70 W: idle), its process (pid 303, 95 % SM) from 8 s (samples 8-15: tensor 65 %, DRAM 20 %, GR active
//     95 %, 350 W), the pod gone from 16 s (samples 16-19: idle at 60 W, nobody's).
// Pure (core only): the report tests use it without a trace; workloads_trace.cpp writes it as one.
#pragma once

#include <cstdint>
#include <vector>

#include "core/raw_sample.hpp"
#include "core/workload.hpp"

namespace solscope::synthetic {

/// 2026-01-01T00:00:00Z in ns since the Unix epoch: the scenario's first sample.
inline constexpr std::int64_t kWorkloadScenarioStartNs = 1'767'225'600'000'000'000;
inline constexpr std::uint32_t kWorkloadScenarioDevices = 2;
inline constexpr std::uint64_t kWorkloadScenarioSamplesPerDevice = 20;  ///< one a second

/// One change of a device's workloads (Writer::add_workloads' arguments).
struct WorkloadChangeAt {
  std::uint32_t device = 0;
  std::int64_t t_ns = 0;
  core::GpuWorkloads workloads;
};

/// The scenario's samples, in time order (sample n of each device, then n + 1): only the tensor pipe, DRAM,
/// GR active and power are known, so that core::derive gives the figures of the header.
[[nodiscard]] auto workload_scenario_samples() -> std::vector<core::RawSample>;
/// The changes, in time order, each made by core::attribute_gpu from the processes and allocations above.
[[nodiscard]] auto workload_scenario_changes() -> std::vector<WorkloadChangeAt>;
/// The workloads rows a trace of the scenario holds once closed (the last rows end at the last sample's end),
/// in Reader::workloads() order.
[[nodiscard]] auto workload_scenario_intervals() -> std::vector<core::WorkloadInterval>;

}  // namespace solscope::synthetic
