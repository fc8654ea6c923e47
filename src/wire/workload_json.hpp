// The JSON shape of workloads (docs/http-api.md "/api/v1/devices", Workloads), both ways: a process's
// workload, a device's `workloads` and the node's per-workload roll-up. Pure, as the rest of the wire.
#pragma once

#include <span>

#include <nlohmann/json_fwd.hpp>

#include "core/live_state.hpp"
#include "core/workload.hpp"
#include "core/workload_rollup.hpp"

namespace solscope::wire {

/// Adds a workload's identity to `out`: pod, namespace, container, hpc_job, user ("" when unknown) and
/// display (WorkloadIdentity::display(): what a view shows, e.g. "ml/train-0/trainer", "job 4242 (alice)",
/// "unknown").
void add_workload_identity(nlohmann::ordered_json& out, const core::WorkloadIdentity& id);
/// The inverse (display is derived, not read); absent or mistyped fields are "".
[[nodiscard]] auto read_workload_identity(const nlohmann::json& json) -> core::WorkloadIdentity;

/// Adds a process's workload to its JSON object: workload {pod, namespace, container, hpc_job, user,
/// display}, origin (core::to_string(WorkloadOrigin)), sm_pct (NVML process utilization, percent; null when
/// unknown) and mps (bool). The identity is nested because the process's own `user` (its owner) differs from
/// the workload's (SLURM_JOB_USER first).
void add_process_workload(nlohmann::ordered_json& out, const core::GpuProcess& process);
/// The inverse, into `process`; absent fields leave the defaults (no workload, origin none, sm_pct unknown).
void read_process_workload(const nlohmann::json& json, core::GpuProcess& process);

/// A device's workloads: {sharing (core::to_string: none, exclusive, time_sliced, concurrent), sharing_label
/// ("", "exclusive", "shared (time-sliced)", "shared (concurrent)"), note, items: [{pod, namespace,
/// container, hpc_job, user, display, origin, pids, sm_pct, fraction}]}; sm_pct (percent) and fraction (0-1)
/// are null when unknown.
[[nodiscard]] auto gpu_workloads_to_json(const core::GpuWorkloads& workloads) -> nlohmann::ordered_json;
/// The inverse; anything not an object reads as no workload, unknown values as their defaults.
[[nodiscard]] auto gpu_workloads_from_json(const nlohmann::json& json) -> core::GpuWorkloads;

/// The node's roll-up (core::workload_rollup): [{pod, namespace, container, hpc_job, user, display, origin,
/// sharing (WorkloadRollup::sharing_text()), gpus: [{device, label, sharing, fraction, sm_pct, pids}]}].
[[nodiscard]] auto workload_rollup_to_json(std::span<const core::WorkloadRollup> rollup)
    -> nlohmann::ordered_json;

}  // namespace solscope::wire
