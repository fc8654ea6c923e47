// step_stat, median_iteration and iteration_strip (detail/training_steps_build.hpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "core/stats.hpp"
#include "report/detail/training_steps_build.hpp"

namespace solscope::report {
namespace {

/// core::percentile_sorted of `sorted` ns, ms.
auto percentile_ms(const std::vector<std::int64_t>& sorted, double p) -> double {
  return core::percentile_sorted(std::span<const std::int64_t>(sorted), p) /
         static_cast<double>(core::kNsPerMs);
}

/// The kind of a moment with `compute` compute kernels and `comm` NCCL kernels running.
auto kind_of(int compute, int comm) -> StripKind {
  if (compute > 0) return comm > 0 ? StripKind::Overlapped : StripKind::Compute;
  return comm > 0 ? StripKind::Exposed : StripKind::Idle;
}

void push_merged(std::vector<StripSegment>& out, StripSegment segment) {
  if (segment.end_ns <= segment.start_ns) return;
  if (!out.empty() && out.back().kind == segment.kind && out.back().end_ns == segment.start_ns) {
    out.back().end_ns = segment.end_ns;
    return;
  }
  out.push_back(segment);
}

/// `segments` (covering [0, length_ns)) folded into kMaxStripSegments equal bins, each the kind holding most
/// of its time (the first kind in StripKind order on a tie).
auto fold(const std::vector<StripSegment>& segments, std::int64_t length_ns) -> std::vector<StripSegment> {
  std::vector<StripSegment> out;
  const auto bins = static_cast<std::int64_t>(kMaxStripSegments);
  std::size_t s = 0;
  for (std::int64_t b = 0; b < bins; ++b) {
    const std::int64_t from = length_ns * b / bins;
    const std::int64_t to = length_ns * (b + 1) / bins;
    std::array<std::int64_t, kStripKindCount> time{};
    while (s < segments.size() && segments[s].end_ns <= from) ++s;
    for (std::size_t i = s; i < segments.size() && segments[i].start_ns < to; ++i) {
      const std::int64_t overlap = std::min(to, segments[i].end_ns) - std::max(from, segments[i].start_ns);
      time[static_cast<std::size_t>(segments[i].kind)] += std::max<std::int64_t>(overlap, 0);
    }
    const auto most = static_cast<std::size_t>(std::max_element(time.begin(), time.end()) - time.begin());
    push_merged(out, StripSegment{from, to, static_cast<StripKind>(most)});
  }
  return out;
}

}  // namespace

auto step_stat(std::vector<std::int64_t> values_ns, std::int64_t total_iteration_ns) -> StepStat {
  if (values_ns.empty()) return {};
  std::sort(values_ns.begin(), values_ns.end());
  const std::int64_t sum = std::accumulate(values_ns.begin(), values_ns.end(), std::int64_t{0});
  const auto n = static_cast<double>(values_ns.size());
  StepStat stat{.p50_ms = percentile_ms(values_ns, 50.0),
                .p90_ms = percentile_ms(values_ns, 90.0),
                .p99_ms = percentile_ms(values_ns, 99.0),
                .mean_ms = static_cast<double>(sum) / n / static_cast<double>(core::kNsPerMs)};
  if (total_iteration_ns > 0) {
    // x 100 before the division: exact for the whole-microsecond sums of a trace (docs/report.md).
    stat.share_pct = static_cast<double>(sum) * core::kPercent / static_cast<double>(total_iteration_ns);
  }
  return stat;
}

auto median_iteration(std::span<const core::KernelIteration> iterations) -> std::size_t {
  if (iterations.empty()) return 0;
  std::vector<std::size_t> order(iterations.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return iterations[a].duration_ns() < iterations[b].duration_ns();
  });
  const std::size_t lower = order[(order.size() - 1) / 2];
  // The earliest iteration of the median's length.
  for (std::size_t i = 0; i < iterations.size(); ++i) {
    if (iterations[i].duration_ns() == iterations[lower].duration_ns()) return i;
  }
  return lower;
}

auto iteration_strip(const core::KernelIteration& iteration, std::span<const core::KernelRecord> kernels)
    -> std::vector<StripSegment> {
  struct Edge {
    std::int64_t t_ns;
    int compute;
    int comm;
  };
  std::vector<Edge> edges;
  for (const auto& k : kernels) {
    if (k.start_ns >= iteration.end_ns) break;
    const std::int64_t from = std::max(k.start_ns, iteration.start_ns);
    const std::int64_t to = std::min(k.end_ns, iteration.end_ns);
    if (to <= from) continue;
    const bool comm = core::classify_kernel(k.name) != core::Collective::None;
    edges.push_back(Edge{from, comm ? 0 : 1, comm ? 1 : 0});
    edges.push_back(Edge{to, comm ? 0 : -1, comm ? -1 : 0});
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t_ns < b.t_ns; });
  std::vector<StripSegment> out;
  std::int64_t at = iteration.start_ns;
  int compute = 0;
  int comm = 0;
  for (const Edge& e : edges) {
    push_merged(out,
                StripSegment{at - iteration.start_ns, e.t_ns - iteration.start_ns, kind_of(compute, comm)});
    at = e.t_ns;
    compute += e.compute;
    comm += e.comm;
  }
  push_merged(out, StripSegment{at - iteration.start_ns, iteration.duration_ns(), kind_of(compute, comm)});
  if (out.size() > kMaxStripSegments) return fold(out, iteration.duration_ns());
  return out;
}

}  // namespace solscope::report
