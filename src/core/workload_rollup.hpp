// The per-workload roll-up of a node's GPUs: every workload with the GPUs it holds, how each is shared, and
// its share of each. The web dashboard's and the API's roll-up view (docs/http-api.md "/api/v1/devices"); the
// grouping is done here once, so a view only draws it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/live_state.hpp"
#include "core/workload.hpp"

namespace solscope::core {

/// One GPU a workload holds.
struct WorkloadGpu {
  std::uint32_t device = 0;  ///< DeviceInfo::index
  std::string label;         ///< device_label(): "GPU 0", "GPU 0 · MIG 3g.40gb #1"
  WorkloadSharing sharing = WorkloadSharing::kExclusive;
  std::optional<double> fraction;  ///< WorkloadShare::fraction, 0-1; nullopt when no split is known
  std::optional<double> sm_pct;    ///< WorkloadShare::sm_pct, percent of the GPU's SM time; nullopt unknown
  std::vector<std::int32_t> pids;  ///< its host PIDs on this GPU, ascending

  friend auto operator==(const WorkloadGpu&, const WorkloadGpu&) -> bool = default;
};

/// One workload of the node and the GPUs it holds.
struct WorkloadRollup {
  WorkloadIdentity id;
  WorkloadOrigin origin = WorkloadOrigin::kNone;  ///< from its first GPU
  std::vector<WorkloadGpu> gpus;                  ///< in device order

  friend auto operator==(const WorkloadRollup&, const WorkloadRollup&) -> bool = default;

  /// How its GPUs are shared, for a view: the distinct sharing_label() values of its GPUs in device order,
  /// joined by ", " ("exclusive", "exclusive, shared (time-sliced)").
  [[nodiscard]] auto sharing_text() const -> std::string;
};

/// Groups the workloads of `devices` (DeviceState::workloads) by identity: one entry per distinct
/// WorkloadIdentity (user included), in order of first appearance over the devices in the order given. A
/// device with no workload adds nothing. Pure; never fails.
[[nodiscard]] auto workload_rollup(std::span<const DeviceState> devices) -> std::vector<WorkloadRollup>;

}  // namespace solscope::core
