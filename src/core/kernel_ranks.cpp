// The ranks of a training job: each rank's median iteration (from its kernel log or its samples), and the
// straggler (docs/design/sol-metrics.md section 13).
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "core/kernel_steps.hpp"
#include "core/stats.hpp"
#include "core/units.hpp"

namespace solscope::core {
namespace {

auto seconds(std::int64_t ns) -> double {
  return static_cast<double>(ns) / static_cast<double>(kNsPerS);
}

template <class Field>
auto median_s(std::span<const KernelIteration> iterations, Field field) -> double {
  std::vector<double> values;
  values.reserve(iterations.size());
  for (const KernelIteration& it : iterations) values.push_back(seconds(field(it)));
  return median_known(std::move(values));
}

}  // namespace

auto rank_steps(std::string rank, std::span<const KernelIteration> iterations) -> std::optional<RankSteps> {
  if (iterations.empty()) return std::nullopt;
  RankSteps r;
  r.rank = std::move(rank);
  r.iteration_s = median_s(iterations, [](const KernelIteration& it) { return it.duration_ns(); });
  r.compute_s = median_s(iterations, [](const KernelIteration& it) { return it.compute_ns; });
  r.communication_s = median_s(iterations, [](const KernelIteration& it) { return it.communication_ns; });
  r.exposed_communication_s =
      median_s(iterations, [](const KernelIteration& it) { return it.exposed_communication_ns; });
  return r;
}

auto rank_steps(std::string rank, const IterationEstimate& estimate) -> std::optional<RankSteps> {
  if (!estimate.periodic || !std::isfinite(estimate.period_s)) return std::nullopt;
  RankSteps r;
  r.rank = std::move(rank);
  r.iteration_s = estimate.period_s;
  r.compute_s = estimate.period_s * estimate.compute_ratio;
  r.communication_s = estimate.period_s * estimate.communication_ratio;
  r.exposed_communication_s = estimate.period_s * estimate.exposed_communication_ratio;
  return r;
}

auto find_straggler(std::span<const RankSteps> ranks) -> std::optional<StragglerVerdict> {
  std::vector<double> compute;
  std::vector<double> iteration;
  std::optional<std::size_t> slowest;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (!std::isfinite(ranks[i].compute_s)) continue;
    compute.push_back(ranks[i].compute_s);
    if (std::isfinite(ranks[i].iteration_s)) iteration.push_back(ranks[i].iteration_s);
    if (!slowest || ranks[i].compute_s > ranks[*slowest].compute_s) slowest = i;
  }
  if (compute.size() < 2) return std::nullopt;
  StragglerVerdict v;
  v.straggler = *slowest;
  const double median_compute = median_known(std::move(compute));
  v.median_compute_s = median_compute;
  v.spread_pct =
      median_compute > 0 ? (ranks[*slowest].compute_s - median_compute) / median_compute * 100.0 : 0.0;
  if (!iteration.empty()) {
    const auto [lo, hi] = std::minmax_element(iteration.begin(), iteration.end());
    const double spread = *hi - *lo;
    const double median_iteration = median_known(std::move(iteration));
    v.iteration_spread_pct = median_iteration > 0 ? spread / median_iteration * 100.0 : 0.0;
  }
  return v;
}

}  // namespace solscope::core
