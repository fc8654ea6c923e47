// One node's jobs compared rank by rank from their samples alone (issue 25 item 3, from one node's daemon for
// its GPUs): a job is a workload of the roll-up (workload_rollup.hpp) that holds several GPUs; each of its
// GPUs is a rank whose iteration is its IterationEstimate (rank_steps), and find_straggler names the rank
// whose compute takes longest. /api/v1/devices sends it beside each roll-up entry (docs/http-api.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/kernel_steps.hpp"
#include "core/live_state.hpp"
#include "core/workload_rollup.hpp"

namespace solscope::core {

/// A workload is a job when it holds at least this many GPUs.
inline constexpr std::size_t kMinJobGpus = 2;

/// The ranks of one job.
struct JobSteps {
  std::vector<std::uint32_t> devices;       ///< the device (DeviceInfo::index) of each of `ranks`
  std::vector<RankSteps> ranks;             ///< its GPUs whose iteration is periodic, in device order
  std::vector<std::uint32_t> not_periodic;  ///< its GPUs without a period (or without a snapshot)
  std::optional<StragglerVerdict> verdict;  ///< find_straggler(ranks): nullopt with fewer than two ranks
};

/// The ranks of `workload` from the snapshots of its GPUs (`devices` in any order; rank labels are the
/// roll-up's: "GPU 0"). nullopt when the workload holds fewer than kMinJobGpus GPUs. Pure; never fails.
[[nodiscard]] auto job_steps(const WorkloadRollup& workload, std::span<const DeviceSnapshot> devices)
    -> std::optional<JobSteps>;

}  // namespace solscope::core
