#include "report/report_builder.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/attainable_gap.hpp"
#include "core/device_info.hpp"
#include "core/metric_id.hpp"
#include "report/report_series.hpp"

namespace solscope::report {
namespace {

auto to_float(double v) -> float {
  return static_cast<float>(v);
}

auto point_of(const core::SolSample& s) -> PhasePoint {
  return PhasePoint{.t_start_ns = s.t_start_ns,
                    .t_end_ns = s.t_end_ns,
                    .compute_sol_pct = to_float(s.compute_sol_pct),
                    .memory_sol_pct = to_float(s.memory_sol_pct),
                    .gpu_util_pct = to_float(s.gpu_util_pct()),
                    .sm_active_pct = to_float(s.sm_active_pct()),
                    .power_w = to_float(s.metric(core::MetricId::PowerW)),
                    .compute_pipe = s.compute_pipe,
                    .memory_path = s.memory_path,
                    .bound = s.bound};
}

}  // namespace

auto bound_slot(core::Bound bound) -> std::size_t {
  for (std::size_t i = 0; i < kBoundOrder.size(); ++i) {
    if (kBoundOrder[i] == bound) return i;
  }
  return kBoundOrder.size() - 1;
}

ReportBuilder::ReportBuilder(std::span<const core::DeviceInfo> devices,
                             std::span<const core::KernelRecord> kernels) {
  for (const auto& d : devices) lane(d.index).device = d;
  for (const auto& k : kernels) add_kernel(k);
}

auto ReportBuilder::lane(std::uint32_t device) -> Lane& {
  auto [it, added] = lanes_.try_emplace(device);
  if (added) it->second.device.index = device;
  return it->second;
}

void ReportBuilder::add_kernel(const core::KernelRecord& kernel) {
  if (samples_ > 0) return;  // the join is sealed at the first sample
  kernels_.add_call(kernel);
  ++kernel_calls_;
}

void ReportBuilder::set_workloads(std::span<const core::WorkloadInterval> rows) {
  if (samples_ > 0) return;
  workloads_.set_rows(rows);
  workloads_recorded_ = true;
}

void ReportBuilder::set_markers(std::vector<core::MarkerRecord> markers, bool present,
                                std::string step_range) {
  if (samples_ > 0) return;
  steps_.set_markers(std::move(markers), present, std::move(step_range));
}

void ReportBuilder::add(const core::SolSample& sample) {
  Lane& l = lane(sample.device_index);
  const std::int64_t duration = std::max<std::int64_t>(sample.duration_ns(), 0);
  if (l.samples == 0) l.start_ns = sample.t_start_ns;
  l.start_ns = std::min(l.start_ns, sample.t_start_ns);
  l.end_ns = l.samples == 0 ? sample.t_end_ns : std::max(l.end_ns, sample.t_end_ns);
  ++l.samples;
  ++samples_;
  l.source = sample.source;
  l.sampled_ns += duration;
  l.bound_ns[bound_slot(sample.bound)] += duration;
  const double power_w = sample.metric(core::MetricId::PowerW);
  if (!std::isnan(power_w)) {
    const std::int64_t weight = std::max<std::int64_t>(sample.duration_ns(), 1);
    l.energy_j += power_w * static_cast<double>(weight) / static_cast<double>(core::kNsPerS);
    l.power_known_ns += weight;
  }
  l.total.add(sample);
  l.bins.add(point_of(sample));
  kernels_.add(sample);
  workloads_.add(sample);
  steps_.add(sample);
}

auto ReportBuilder::gpu_report(Lane& l) const -> GpuReport {
  GpuReport gpu{.device = l.device,
                .source = l.source,
                .samples = l.samples,
                .start_ns = l.start_ns,
                .end_ns = l.end_ns,
                .sampled_ns = l.sampled_ns,
                .bound_ns = l.bound_ns};
  if (l.samples > 0) {
    const core::SolSample mean = l.total.result();
    Figures& f = gpu.figures;
    f.compute_sol_pct = mean.compute_sol_pct;
    f.compute_pipe = mean.compute_pipe;
    f.memory_sol_pct = mean.memory_sol_pct;
    f.memory_path = mean.memory_path;
    f.gpu_util_pct = mean.gpu_util_pct();
    f.sm_active_pct = mean.sm_active_pct();
    f.power_known_ns = l.power_known_ns;
    if (l.power_known_ns > 0) {
      f.energy_j = l.energy_j;
      f.mean_power_w = mean.metric(core::MetricId::PowerW);
    }
    gpu.attainable_compute_sol_pct = mean.attainable_compute_sol_pct;
    gpu.attainable_memory_sol_pct = mean.attainable_memory_sol_pct;
    const core::AttainableGap gap = core::attainable_gap(mean);  // the views' gap, over the whole trace
    gpu.compute_headroom_pct = gap.compute_pts;
    gpu.memory_headroom_pct = gap.memory_pts;
  }
  gpu.min_phase_ns = min_phase_ns(l.sampled_ns);
  gpu.phases = detect_bin_phases(l.bins.bins(), gpu.min_phase_ns);
  gpu.series = downsample_bins(l.bins.bins());
  l.bins.clear();  // no longer needed
  kernels_.fill(gpu);
  return gpu;
}

auto ReportBuilder::finish(TraceFacts facts) -> Report {
  kernels_.seal();
  for (const std::uint32_t device : kernels_.devices()) lane(device);
  Report report{.trace = std::move(facts), .samples = samples_, .kernel_calls = kernel_calls_};
  std::vector<std::pair<std::uint32_t, std::string>> labels;
  for (auto& [device, l] : lanes_) {
    report.gpus.push_back(gpu_report(l));
    labels.emplace_back(device, core::device_label(l.device));
  }
  report.training_steps = steps_.finish(labels, kernels_);
  report.workloads_recorded = workloads_recorded_;
  report.workloads = workloads_.finish();
  return report;
}

}  // namespace solscope::report
