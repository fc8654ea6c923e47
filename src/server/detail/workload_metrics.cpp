#include "server/detail/workload_metrics.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <utility>

#include "core/sol_terms.hpp"

namespace solscope::server::detail {
namespace {

// The label names (core::kPodLabel, ...) are dcgm-exporter's. Its pod mapper (kubernetes.go) sets pod,
// namespace and container on a GPU's series when the kubelet's PodResources List maps the GPU's device ID to
// a pod's container; its HPC mapper (hpc.go) sets hpc_job when a job mapping file named after the GPU's index
// lists a job.
using core::kContainerLabel;
using core::kHpcJobLabel;
using core::kNamespaceLabel;
using core::kPodLabel;
constexpr std::string_view kWorkloadSecondsName = core::kPromWorkloadGpuSecondsName;
constexpr const char* kWorkloadSecondsHelp =
    "GPU-seconds per workload and bound class of the samples (exclusive: all of the GPU's; time_sliced: "
    "split by SM share; concurrent: unsplit, under the labels all workloads share); rate() of bound=\"idle\" "
    "is "
    "allocated but idle GPU time.";

}  // namespace

auto with_workload_labels(Labels labels, const core::WorkloadIdentity& id) -> Labels {
  const std::array<std::pair<std::string_view, const std::string*>, 4> fields{
      {{kPodLabel, &id.pod},
       {kNamespaceLabel, &id.pod_namespace},
       {kContainerLabel, &id.container},
       {kHpcJobLabel, &id.hpc_job}}};
  for (const auto& [name, value] : fields) {
    if (!value->empty()) labels.push_back({std::string(name), *value});
  }
  return labels;
}

auto gpu_series_labels(Labels base, const core::GpuWorkloads& workloads) -> Labels {
  return with_workload_labels(std::move(base), workloads.label_identity());
}

void add_workload_families(Families& f, const core::DeviceSnapshot& d, const Labels& base,
                           const Labels& gpu) {
  const core::GpuWorkloads& w = d.state.workloads;
  f.gauge("solscope_gpu_workloads",
          "Workloads on the GPU now (pods' containers, jobs, containers, users); sharing is none, exclusive, "
          "time_sliced or concurrent.",
          with(gpu, "sharing", core::to_string(w.sharing)), static_cast<double>(w.workloads.size()));
  for (const auto& [key, seconds] : d.workload_counters.series()) {
    const Labels labels =
        with(with_workload_labels(base, key.labels), "sharing", core::to_string(key.sharing));
    for (std::size_t b = 0; b < seconds.size(); ++b) {
      f.counter(kWorkloadSecondsName, kWorkloadSecondsHelp,
                with(labels, "bound", core::to_string(static_cast<core::Bound>(b))), seconds[b]);
    }
  }
  f.counter("solscope_workload_dropped_gpu_seconds_total",
            "GPU-seconds of workloads beyond the first " + std::to_string(core::kMaxWorkloadSeriesPerGpu) +
                " series of solscope_workload_gpu_seconds_total on the GPU.",
            base, d.workload_counters.dropped_seconds());
}

}  // namespace solscope::server::detail
