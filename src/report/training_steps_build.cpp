// StepCollector (detail/training_steps_build.hpp).
#include <algorithm>
#include <array>
#include <numeric>
#include <string>

#include "report/detail/training_steps_build.hpp"

namespace solscope::report {
namespace {

/// A window's points span at least this long before it is estimated on its own.
auto window_full(const std::vector<core::IterationPoint>& points) -> bool {
  return !points.empty() && points.back().t_end_ns - points.front().t_start_ns >= core::kIterationWindowNs;
}

/// The shown estimate: the periodic window of the median period (lower median, earliest on a tie), else the
/// last window's.
auto shown_estimate(const std::vector<core::IterationEstimate>& estimates) -> core::IterationEstimate {
  std::vector<const core::IterationEstimate*> periodic;
  for (const auto& e : estimates) {
    if (e.periodic) periodic.push_back(&e);
  }
  if (periodic.empty()) return estimates.empty() ? core::IterationEstimate{} : estimates.back();
  std::stable_sort(periodic.begin(), periodic.end(),
                   [](const auto* a, const auto* b) { return a->period_s < b->period_s; });
  return *periodic[(periodic.size() - 1) / 2];
}

}  // namespace

void StepCollector::set_markers(std::vector<core::MarkerRecord> markers, bool present,
                                std::string step_range) {
  markers_ = std::move(markers);
  step_options_.nvtx_range = std::move(step_range);
  markers_present_ = present;
}

void StepCollector::add(const core::SolSample& sample) {
  SampleLane& lane = samples_[sample.device_index];
  lane.points.push_back(core::iteration_point(sample));
  if (window_full(lane.points)) {
    lane.estimates.push_back(core::estimate_iteration(lane.points));
    lane.points.clear();
  }
}

void StepCollector::fill_from_kernels(GpuSteps& gpu, std::vector<core::KernelRecord> records,
                                      std::vector<core::KernelIteration>& all) const {
  core::KernelSteps steps = core::kernel_steps(gpu.device, records, markers_, step_options_);
  gpu.note = std::move(steps.note);
  if (steps.iterations.empty()) {
    if (gpu.note.empty()) gpu.note = "no repeating step found";
    return;
  }
  gpu.source = StepSource::KernelLog;
  gpu.boundary = steps.boundary;
  gpu.nvtx_range = std::move(steps.nvtx_range);
  all = std::move(steps.iterations);
  gpu.iteration_count = all.size();
  std::vector<std::int64_t> length, compute, comm, exposed;
  std::int64_t total = 0;
  std::array<std::int64_t, core::kCollectiveCount> per_collective{};
  for (const auto& it : all) {
    length.push_back(it.duration_ns());
    compute.push_back(it.compute_ns);
    comm.push_back(it.communication_ns);
    exposed.push_back(it.exposed_communication_ns);
    total += it.duration_ns();
    for (std::size_t c = 0; c < core::kCollectiveCount; ++c) per_collective[c] += it.collective_ns[c];
  }
  const std::int64_t comm_total = std::accumulate(comm.begin(), comm.end(), std::int64_t{0});
  for (std::size_t c = 0; comm_total > 0 && c < core::kCollectiveCount; ++c) {
    gpu.collective_pct[c] =
        static_cast<double>(per_collective[c]) * core::kPercent / static_cast<double>(comm_total);
  }
  gpu.iteration = step_stat(std::move(length), total);
  gpu.compute = step_stat(std::move(compute), total);
  gpu.communication = step_stat(std::move(comm), total);
  gpu.exposed = step_stat(std::move(exposed), total);
  gpu.median_iteration = median_iteration(all);
  gpu.median_length_ns = all[gpu.median_iteration].duration_ns();
  gpu.strip = iteration_strip(all[gpu.median_iteration], records);
  gpu.iterations.assign(all.begin(),
                        all.begin() + static_cast<std::ptrdiff_t>(std::min(all.size(), kMaxStepIterations)));
}

void StepCollector::fill_from_samples(GpuSteps& gpu, SampleLane& lane) {
  // The last stretch counts when it is the only one or at least half a window long.
  if (!lane.points.empty() &&
      (lane.estimates.empty() ||
       lane.points.back().t_end_ns - lane.points.front().t_start_ns >= core::kIterationWindowNs / 2)) {
    lane.estimates.push_back(core::estimate_iteration(lane.points));
  }
  lane.points.clear();
  if (lane.estimates.empty()) return;
  gpu.windows = lane.estimates.size();
  gpu.periodic_windows = static_cast<std::size_t>(
      std::count_if(lane.estimates.begin(), lane.estimates.end(), [](const auto& e) { return e.periodic; }));
  gpu.estimate = shown_estimate(lane.estimates);
  gpu.source = StepSource::Samples;
}

auto StepCollector::finish(const std::vector<std::pair<std::uint32_t, std::string>>& labels,
                           const KernelJoin& kernels) -> TrainingSteps {
  TrainingSteps out{.markers_recorded = markers_present_, .markers = markers_.size()};
  std::vector<core::RankSteps> kernel_ranks, sample_ranks;
  std::vector<std::uint32_t> kernel_devices, sample_devices;
  // `labels` holds every GPU of the report (recorded, with kernels or with samples), ascending.
  for (const auto& [device, label] : labels) {
    GpuSteps gpu{.device = device, .label = label};
    std::vector<core::KernelIteration> all;
    std::size_t left = 0;
    std::vector<core::KernelRecord> records = kernels.records(device, kMaxStepKernelsPerGpu, left);
    if (!records.empty()) {
      gpu.kernels_used = records.size();
      gpu.kernels_left = left;
      fill_from_kernels(gpu, std::move(records), all);
    }
    if (gpu.source == StepSource::None) {
      if (auto s = samples_.find(device); s != samples_.end()) fill_from_samples(gpu, s->second);
    }
    if (gpu.source == StepSource::KernelLog) {
      if (auto rank = core::rank_steps(gpu.label, all)) {
        kernel_ranks.push_back(std::move(*rank));
        kernel_devices.push_back(device);
      }
    } else if (gpu.source == StepSource::Samples) {
      if (auto rank = core::rank_steps(gpu.label, gpu.estimate)) {
        sample_ranks.push_back(std::move(*rank));
        sample_devices.push_back(device);
      }
    }
    out.gpus.push_back(std::move(gpu));
  }
  const bool kernel_log = !kernel_ranks.empty();
  out.ranks = kernel_log ? std::move(kernel_ranks) : std::move(sample_ranks);
  out.rank_devices = kernel_log ? std::move(kernel_devices) : std::move(sample_devices);
  if (!out.ranks.empty()) out.rank_source = kernel_log ? StepSource::KernelLog : StepSource::Samples;
  out.verdict = core::find_straggler(out.ranks);
  samples_.clear();
  markers_.clear();
  return out;
}

}  // namespace solscope::report
