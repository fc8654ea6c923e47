// Who uses each GPU, in /metrics (docs/http-api.md "Metrics", "Workloads"): the workload labels every per-GPU
// series carries, the sharing gauge, and the GPU-seconds per workload and bound class
// (core::WorkloadCounters). The attribution rules themselves are core/workload.hpp's.
#pragma once

#include "core/live_state.hpp"
#include "core/workload.hpp"
#include "server/detail/metric_builder.hpp"

namespace solscope::server::detail {

/// `labels` plus the known (non-empty) fields of `id` as dcgm-exporter names them: `pod`, `namespace`,
/// `container`, `hpc_job`, in that order. An unknown field adds no label (Prometheus treats an empty label as
/// an absent one; dcgm-exporter adds these attributes only when it found them). `id.user` is never a label.
[[nodiscard]] auto with_workload_labels(Labels labels, const core::WorkloadIdentity& id) -> Labels;

/// The labels of a GPU's own series: `base` (the dcgm-exporter join labels) plus with_workload_labels() of
/// GpuWorkloads::label_identity(): the one workload's fields when exclusive, the fields every workload agrees
/// on when shared, none when no workload holds the GPU.
[[nodiscard]] auto gpu_series_labels(Labels base, const core::GpuWorkloads& workloads) -> Labels;

/// Adds, for one device: `solscope_gpu_workloads{gpu..., sharing}` (the number of workloads, labelled with
/// `gpu`, the GPU's series labels), `solscope_workload_gpu_seconds_total{base..., pod, namespace, container,
/// hpc_job, sharing, bound}` (one series per workload key and bound class, from 0) and
/// `solscope_workload_dropped_gpu_seconds_total{base...}` (from 0). `base` are the join labels without
/// workload labels: a workload series names its own workload.
void add_workload_families(Families& f, const core::DeviceSnapshot& d, const Labels& base, const Labels& gpu);

}  // namespace solscope::server::detail
