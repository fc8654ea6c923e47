#include "core/job_steps.hpp"

#include <algorithm>

namespace solscope::core {

auto job_steps(const WorkloadRollup& workload, std::span<const DeviceSnapshot> devices)
    -> std::optional<JobSteps> {
  if (workload.gpus.size() < kMinJobGpus) return std::nullopt;
  JobSteps job;
  for (const WorkloadGpu& gpu : workload.gpus) {
    const auto it = std::find_if(devices.begin(), devices.end(), [&gpu](const DeviceSnapshot& d) {
      return d.state.info.index == gpu.device;
    });
    std::optional<RankSteps> rank = it == devices.end() ? std::nullopt : rank_steps(gpu.label, it->iteration);
    if (!rank) {
      job.not_periodic.push_back(gpu.device);
      continue;
    }
    job.devices.push_back(gpu.device);
    job.ranks.push_back(std::move(*rank));
  }
  job.verdict = find_straggler(job.ranks);
  return job;
}

}  // namespace solscope::core
