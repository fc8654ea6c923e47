// Reading back the JSON the daemon sends (docs/http-api.md): a SolSample (trace::sol_sample_to_json's shape)
// and a device of /api/v1/devices. The writing side of devices lives here too, so both directions stay in
// step.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "core/live_state.hpp"
#include "core/result.hpp"
#include "core/sol_sample.hpp"

namespace solscope::server {

/// A SolSample from its JSON object (trace::sol_sample_to_json). Missing or null numbers are NaN, unknown
/// pipe/path/bound/source names are "unknown" (kCount, Bound::Unknown, SourceKind::None); keys it does not
/// know are ignored (newer daemons may add some). Errors: InvalidArgument "sample JSON ..." when `json` is
/// not an object or `device`, `t_start_ns` or `t_end_ns` is missing or not an integer.
[[nodiscard]] auto sample_from_json(const nlohmann::json& json) -> core::Result<core::SolSample>;

/// One device of /api/v1/devices without its latest window: index, uuid, name, chip, pci_bus_id, sm_count,
/// memory_total_bytes, max_sm_clock_mhz, max_mem_clock_mhz, dram_peak_bytes_per_s (null when unknown),
/// source, source_note, workload_note, lost, processes [{pid, user, gpu_memory_bytes, command,
/// container_id}].
[[nodiscard]] auto device_state_to_json(const core::DeviceState& device) -> nlohmann::ordered_json;

/// The inverse of device_state_to_json (unknown keys ignored, missing ones left at their defaults). Errors:
/// InvalidArgument "device JSON ..." when `json` is not an object or has no integer `index`.
[[nodiscard]] auto device_state_from_json(const nlohmann::json& json) -> core::Result<core::DeviceState>;

}  // namespace solscope::server
