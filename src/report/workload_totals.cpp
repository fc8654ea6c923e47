#include "report/detail/workload_totals.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/metric_id.hpp"
#include "core/units.hpp"

namespace solscope::report {
namespace {

constexpr std::int64_t kOpenEnd = std::numeric_limits<std::int64_t>::max();

/// The rows of one set: one device, one t_start_ns.
auto same_set(const core::WorkloadInterval& a, const core::WorkloadInterval& b) -> bool {
  return a.device == b.device && a.t_start_ns == b.t_start_ns;
}

}  // namespace

auto workload_label(const core::WorkloadIdentity& id) -> std::string {
  if (id.pod.empty() && id.hpc_job.empty() && id.container.empty() && !id.pod_namespace.empty())
    return "namespace " + id.pod_namespace;
  return id.display();
}

void WorkloadTotals::set_rows(std::span<const core::WorkloadInterval> rows) {
  std::vector<const core::WorkloadInterval*> sorted;
  sorted.reserve(rows.size());
  for (const auto& row : rows) sorted.push_back(&row);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    return a->device != b->device ? a->device < b->device : a->t_start_ns < b->t_start_ns;
  });
  for (std::size_t i = 0; i < sorted.size();) {
    const core::WorkloadInterval& first = *sorted[i];
    core::GpuWorkloads set{.sharing = first.sharing, .workloads = {}, .note = {}};
    std::size_t j = i;
    for (; j < sorted.size() && same_set(*sorted[j], first); ++j) set.workloads.push_back(sorted[j]->share);
    Span span{.start_ns = first.t_start_ns,
              .end_ns = first.t_end_ns.value_or(kOpenEnd),
              .parts = core::workload_parts(set),
              .sums = {}};
    span.sums.assign(span.parts.size(), nullptr);
    timelines_[first.device].spans.push_back(std::move(span));
    i = j;
  }
}

void WorkloadTotals::add(const core::SolSample& sample) {
  const auto it = timelines_.find(sample.device_index);
  if (it == timelines_.end()) return;
  Timeline& t = it->second;
  // Samples of a device come in time order: the sets that started at or before this one are behind.
  while (t.next + 1 < t.spans.size() && t.spans[t.next + 1].start_ns <= sample.t_start_ns) ++t.next;
  if (t.next >= t.spans.size()) return;
  Span& span = t.spans[t.next];
  if (sample.t_start_ns < span.start_ns || sample.t_start_ns >= span.end_ns) return;
  const double seconds = static_cast<double>(sample.duration_ns()) / static_cast<double>(core::kNsPerS);
  if (!(seconds > 0.0)) return;
  for (std::size_t i = 0; i < span.parts.size(); ++i) {
    const core::WorkloadPart& part = span.parts[i];
    if (span.sums[i] == nullptr) span.sums[i] = &sums_[{part.id, part.sharing}];  // map nodes do not move
    add_part(*span.sums[i], part, sample, seconds);
  }
}

void WorkloadTotals::add_part(Sums& s, const core::WorkloadPart& part, const core::SolSample& sample,
                              double seconds) {
  if (std::find(s.devices.begin(), s.devices.end(), sample.device_index) == s.devices.end()) {
    s.devices.insert(std::upper_bound(s.devices.begin(), s.devices.end(), sample.device_index),
                     sample.device_index);
  }
  const double weight = seconds * part.fraction;
  s.gpu_s += weight;
  if (!std::isnan(sample.compute_sol_pct)) {
    s.compute_weighted += sample.compute_sol_pct * weight;
    s.compute_s += weight;
  }
  if (!std::isnan(sample.memory_sol_pct)) {
    s.memory_weighted += sample.memory_sol_pct * weight;
    s.memory_s += weight;
  }
  if (const double power_w = sample.metric(core::MetricId::PowerW); !std::isnan(power_w)) {
    s.energy_j += power_w * weight;
    s.power_known = true;
  }
  if (sample.bound == core::Bound::Idle) s.idle_s += weight;
}

auto WorkloadTotals::finish() const -> std::vector<WorkloadReport> {
  std::vector<WorkloadReport> out;
  out.reserve(sums_.size());
  for (const auto& [key, s] : sums_) {
    WorkloadReport w{.id = key.first, .sharing = key.second, .devices = s.devices, .gpu_s = s.gpu_s};
    if (s.compute_s > 0.0) w.compute_sol_pct = s.compute_weighted / s.compute_s;
    if (s.memory_s > 0.0) w.memory_sol_pct = s.memory_weighted / s.memory_s;
    if (s.power_known) w.energy_j = s.energy_j;
    w.idle_s = s.idle_s;
    out.push_back(std::move(w));
  }
  // sums_ is in key order, so a stable sort by GPU-seconds leaves ties in (identity, sharing) order.
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.gpu_s > b.gpu_s; });
  return out;
}

}  // namespace solscope::report
