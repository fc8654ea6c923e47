#include "report/detail/sample_bins.hpp"

#include <algorithm>
#include <cmath>

namespace solscope::report {
namespace {

void merge_mean(core::WeightedMean& into, const core::WeightedMean& from) {
  into.weighted_sum += from.weighted_sum;
  into.weight += from.weight;
}

}  // namespace

auto dominant_bound(const BoundTimes& times, core::Bound keep) -> core::Bound {
  const std::int64_t best = *std::max_element(times.begin(), times.end());
  if (times[bound_slot(keep)] == best) return keep;
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (times[i] == best) return kBoundOrder[i];
  }
  return keep;
}

auto SampleBin::of(const PhasePoint& p) -> SampleBin {
  SampleBin b{.t_start_ns = p.t_start_ns,
              .t_end_ns = p.t_end_ns,
              .max_end_ns = p.t_end_ns,
              .samples = 1,
              .bound = p.bound};
  b.bound_ns[bound_slot(p.bound)] = std::max<std::int64_t>(p.t_end_ns - p.t_start_ns, 0);
  const auto w = static_cast<double>(weight_ns(p));
  b.compute.add(p.compute_sol_pct, w);
  b.memory.add(p.memory_sol_pct, w);
  b.util.add(p.gpu_util_pct, w);
  b.sm_active.add(p.sm_active_pct, w);
  b.power.add(p.power_w, w);
  if (!std::isnan(p.compute_sol_pct) && p.compute_pipe != core::Pipe::kCount) {
    b.pipe_ns[static_cast<std::size_t>(p.compute_pipe)] = w;
  }
  if (!std::isnan(p.memory_sol_pct) && p.memory_path != core::MemPath::kCount) {
    b.path_ns[static_cast<std::size_t>(p.memory_path)] = w;
  }
  return b;
}

void SampleBin::merge(const SampleBin& later) {
  t_end_ns = later.t_end_ns;
  max_end_ns = std::max(max_end_ns, later.max_end_ns);
  samples += later.samples;
  for (std::size_t i = 0; i < bound_ns.size(); ++i) bound_ns[i] += later.bound_ns[i];
  bound = dominant_bound(bound_ns, bound);
  merge_mean(compute, later.compute);
  merge_mean(memory, later.memory);
  merge_mean(util, later.util);
  merge_mean(sm_active, later.sm_active);
  merge_mean(power, later.power);
  for (std::size_t i = 0; i < pipe_ns.size(); ++i) pipe_ns[i] += later.pipe_ns[i];
  for (std::size_t i = 0; i < path_ns.size(); ++i) path_ns[i] += later.path_ns[i];
}

auto SampleBin::sampled_ns() const -> std::int64_t {
  std::int64_t sum = 0;
  for (const std::int64_t t : bound_ns) sum += t;
  return sum;
}

auto bins_of(std::span<const PhasePoint> points) -> std::vector<SampleBin> {
  std::vector<SampleBin> bins;
  bins.reserve(points.size());
  for (const PhasePoint& p : points) bins.push_back(SampleBin::of(p));
  return bins;
}

SampleBins::SampleBins(std::size_t max_bins) : max_bins_(std::max<std::size_t>(max_bins, 2)) {}

void SampleBins::add(const PhasePoint& point) {
  if (!bins_.empty() && bins_.back().samples < per_bin_) {
    bins_.back().merge(SampleBin::of(point));
    return;
  }
  if (bins_.size() == max_bins_) {
    halve();
    add(point);
    return;
  }
  bins_.push_back(SampleBin::of(point));
}

/// Merges each pair of neighbours in place: every full bin then holds twice as many samples.
void SampleBins::halve() {
  std::size_t out = 0;
  for (std::size_t i = 0; i < bins_.size(); i += 2) {
    SampleBin merged = bins_[i];
    if (i + 1 < bins_.size()) merged.merge(bins_[i + 1]);
    bins_[out++] = merged;
  }
  bins_.resize(out);
  per_bin_ *= 2;
}

void SampleBins::clear() {
  std::vector<SampleBin>().swap(bins_);
  per_bin_ = 1;
}

}  // namespace solscope::report
