// `solscope devices`' rendering of a GpuProbe: the text for people and the JSON (--json), each MIG instance
// listed under its GPU.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "runtime/gpu_backend.hpp"

namespace solscope::app {

/// The text: the driver and permission lines, then per GPU "GPU <index>  <name>  <uuid>  pci <bus id>  <GiB>
/// GiB[  MIG on]" with its source, why, GPM and fix lines; a MIG instance as "  GPU 0 · MIG 3g.40gb #1
/// <MIG-uuid>  <SMs> SMs  <GiB, 2 decimals> GiB  source: <source>" with its why and fix lines indented
/// below. Names and reasons are printed as given: the caller makes them terminal-safe.
[[nodiscard]] auto format_devices_text(const GpuProbe& probe) -> std::string;

/// The JSON of `solscope devices --json`: driver, permission, and per device index, name, uuid, PCI bus id,
/// memory, source, reason, hint, GPM, MIG mode and lost; a MIG-enabled GPU adds "mig_instances" and
/// "mig_note"; a MIG instance adds "label", "parent_uuid", "gpu_index", "gpu_i_id", "gpu_i_profile" (the
/// names of dcgm-exporter's labels), "ci_id", "sm_count", "mig_sm_share" and "mig_memory_share" (0-1, null
/// when unknown).
[[nodiscard]] auto devices_json(const GpuProbe& probe) -> nlohmann::json;

}  // namespace solscope::app
