#include "core/iteration.hpp"

#include <cmath>

#include "core/detail/iteration_fold.hpp"
#include "core/detail/iteration_period.hpp"

namespace solscope::core {
namespace {

/// The first finite of `a`, `b`; NaN when neither.
auto first_known(double a, double b) -> double {
  return std::isfinite(a) ? a : b;
}

}  // namespace

auto iteration_point(const SolSample& sample) -> IterationPoint {
  double link = 0.0;
  bool known = false;
  for (MetricId id : {MetricId::NvlinkRxBytesPerS, MetricId::NvlinkTxBytesPerS, MetricId::PcieReadBytesPerS,
                      MetricId::PcieWriteBytesPerS}) {
    const double v = sample.metric(id);
    if (!std::isfinite(v)) continue;
    link += v;
    known = true;
  }
  return {.t_start_ns = sample.t_start_ns,
          .t_end_ns = sample.t_end_ns,
          .activity = static_cast<float>(first_known(sample.sm_active_pct(), sample.compute_sol_pct)),
          .interconnect = static_cast<float>(known ? link : kUnknown),
          .bound = sample.bound};
}

auto estimate_iteration(std::span<const IterationPoint> points) -> IterationEstimate {
  IterationEstimate out;
  if (!points.empty()) {
    out.window_ns = points.back().t_end_ns - points.front().t_start_ns;
    out.estimated_at_ns = points.back().t_end_ns;
  }
  const detail::PeriodFit fit = detail::find_period(points);
  out.confidence = fit.confidence;
  out.note = fit.note;
  if (std::isnan(fit.period_s)) return out;
  out.periodic = true;
  out.period_s = fit.period_s;
  detail::fold_iteration(points, fit.period_s, out);
  return out;
}

void IterationTracker::add(const SolSample& sample) {
  if (!points_.empty() && sample.t_start_ns < points_.back().t_start_ns)
    clear();  // time went back: start afresh
  points_.push_back(iteration_point(sample));
  const bool due = sample.t_end_ns >= next_estimate_ns_;
  if (!due && points_.size() < 2 * kIterationMaxPoints) return;  // trimmed at the next estimate
  drop_expired(sample.t_end_ns);
  if (!due) return;
  estimate_ = estimate_iteration(points_);
  next_estimate_ns_ = sample.t_end_ns + kIterationEstimateEveryNs;
}

void IterationTracker::drop_expired(std::int64_t now_ns) {
  const std::int64_t horizon_ns = now_ns - kIterationWindowNs;
  std::size_t first = 0;
  while (points_.size() - first > 1 &&
         (points_.size() - first > kIterationMaxPoints || points_[first].t_start_ns < horizon_ns)) {
    ++first;
  }
  points_.erase(points_.begin(), points_.begin() + static_cast<std::ptrdiff_t>(first));
}

void IterationTracker::clear() {
  points_.clear();
  next_estimate_ns_ = 0;
  estimate_ = {};
}

}  // namespace solscope::core
