#include "data/synthetic/workloads.hpp"

#include <array>

#include "core/units.hpp"

namespace solscope::synthetic {
namespace {

constexpr std::int64_t kSecondNs = core::kNsPerS;

auto pod(const char* name_space, const char* name, const char* container) -> core::WorkloadIdentity {
  return core::WorkloadIdentity{.pod = name, .pod_namespace = name_space, .container = container};
}

auto train_a() -> core::WorkloadIdentity {
  return pod("research", "train-a", "main");
}
auto infer_b() -> core::WorkloadIdentity {
  return pod("serving", "infer-b", "server");
}
auto etl_c() -> core::WorkloadIdentity {
  return pod("batch", "etl-c", "worker");
}

/// Tensor pipe, DRAM and GR active in percent, power in W.
struct Load {
  double tensor_pct;
  double dram_pct;
  double gr_active_pct;
  double power_w;
};

auto load_of(std::uint32_t device, std::uint64_t n) -> Load {
  if (device == 0) return n < 10 ? Load{80, 30, 90, 400} : Load{40, 70, 90, 300};
  if (n < 8) return Load{0, 0, 0, 70};
  if (n < 16) return Load{65, 20, 95, 350};
  return Load{0, 0, 0, 60};
}

auto at_s(std::int64_t s) -> std::int64_t {
  return kWorkloadScenarioStartNs + s * kSecondNs;
}

}  // namespace

auto workload_scenario_samples() -> std::vector<core::RawSample> {
  std::vector<core::RawSample> out;
  for (std::uint64_t n = 0; n < kWorkloadScenarioSamplesPerDevice; ++n) {
    for (std::uint32_t d = 0; d < kWorkloadScenarioDevices; ++d) {
      core::RawSample s;
      s.device_index = d;
      s.t_start_ns = at_s(static_cast<std::int64_t>(n));
      s.t_end_ns = s.t_start_ns + kSecondNs;
      s.source = core::SourceKind::Gpm;
      const Load load = load_of(d, n);
      s.set(core::MetricId::TensorPipe, load.tensor_pct);
      s.set(core::MetricId::DramThroughput, load.dram_pct);
      s.set(core::MetricId::GrActive, load.gr_active_pct);
      s.set(core::MetricId::PowerW, load.power_w);
      out.push_back(s);
    }
  }
  return out;
}

auto workload_scenario_changes() -> std::vector<WorkloadChangeAt> {
  using core::ProcessWorkload;
  using core::WorkloadAllocation;
  using core::WorkloadOrigin;
  const std::array<ProcessWorkload, 3> sliced{
      ProcessWorkload{.pid = 101, .id = train_a(), .origin = WorkloadOrigin::kKubelet, .sm_pct = 60.0},
      ProcessWorkload{.pid = 202, .id = infer_b(), .origin = WorkloadOrigin::kKubelet, .sm_pct = 10.0},
      ProcessWorkload{.pid = 203, .id = infer_b(), .origin = WorkloadOrigin::kKubelet, .sm_pct = 10.0}};
  const std::array<WorkloadAllocation, 1> allocated{WorkloadAllocation{.id = etl_c()}};
  const std::array<ProcessWorkload, 1> running{
      ProcessWorkload{.pid = 303, .id = etl_c(), .origin = WorkloadOrigin::kKubelet, .sm_pct = 95.0}};
  return {WorkloadChangeAt{0, at_s(0), core::attribute_gpu(sliced, {}, "kubelet PodResources")},
          WorkloadChangeAt{1, at_s(0), core::attribute_gpu({}, allocated, "kubelet PodResources")},
          WorkloadChangeAt{1, at_s(8), core::attribute_gpu(running, allocated, "kubelet PodResources")},
          WorkloadChangeAt{1, at_s(16), core::attribute_gpu({}, {}, "kubelet PodResources")}};
}

auto workload_scenario_intervals() -> std::vector<core::WorkloadInterval> {
  const auto changes = workload_scenario_changes();
  const std::int64_t end_ns = at_s(static_cast<std::int64_t>(kWorkloadScenarioSamplesPerDevice));
  std::vector<core::WorkloadInterval> out;
  const auto add = [&](const WorkloadChangeAt& change, std::int64_t until_ns) {
    for (const core::WorkloadShare& share : change.workloads.workloads) {
      out.push_back(core::WorkloadInterval{.device = change.device,
                                           .t_start_ns = change.t_ns,
                                           .t_end_ns = until_ns,
                                           .sharing = change.workloads.sharing,
                                           .share = share});
    }
  };
  add(changes[0], end_ns);
  add(changes[1], changes[2].t_ns);
  add(changes[2], changes[3].t_ns);
  return out;
}

}  // namespace solscope::synthetic
