// The JSON shape of one GPU of /api/v1/devices (docs/http-api.md) without its latest window, in both
// directions: the daemon writes it, the terminal view attached to a daemon reads it back.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "core/live_state.hpp"
#include "core/result.hpp"

namespace solscope::wire {

/// One device of /api/v1/devices without its latest window: index, uuid, name, chip, pci_bus_id, sm_count,
/// memory_total_bytes, max_sm_clock_mhz, max_mem_clock_mhz, dram_peak_bytes_per_s (null when unknown),
/// label (core::device_label: "GPU 0" or "GPU 0 · MIG 3g.40gb #1"), gpu (the physical GPU's index,
/// DeviceInfo::gpu_number()), parent_uuid, mig_profile ("" for a whole GPU), mig_instance_id and
/// mig_compute_instance_id (null for a whole GPU or unknown), mig_sm_share and mig_memory_share (0-1, null
/// for a whole GPU or unknown), source, source_note, workload_note, lost, processes [{pid, user,
/// gpu_memory_bytes, command, container_id, workload {pod, namespace, container, hpc_job, user, display},
/// origin, sm_pct, mps}] and workloads {sharing, sharing_label, note, items} (wire/workload_json.hpp).
[[nodiscard]] auto device_state_to_json(const core::DeviceState& device) -> nlohmann::ordered_json;

/// Adds a device's name and MIG identity to `out`: label (core::device_label), gpu (the physical GPU's
/// index), parent_uuid, mig_profile, mig_instance_id, mig_compute_instance_id (null for a whole GPU or
/// unknown), mig_sm_share, mig_memory_share (null for a whole GPU or unknown). The one spelling of these
/// fields in every JSON output (/api/v1/devices, `solscope devices --json`).
void add_mig_identity(nlohmann::ordered_json& out, const core::DeviceInfo& info);

/// The inverse of device_state_to_json (unknown keys ignored, missing ones left at their defaults). Errors:
/// InvalidArgument "device JSON ..." when `json` is not an object or has no integer `index`.
[[nodiscard]] auto device_state_from_json(const nlohmann::json& json) -> core::Result<core::DeviceState>;

}  // namespace solscope::wire
