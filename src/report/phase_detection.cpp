#include "report/detail/phase_detection.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <queue>
#include <tuple>

namespace solscope::report {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

/// A candidate phase: bins [first, last], linked to its neighbours.
struct Run {
  std::size_t first = 0;
  std::size_t last = 0;
  std::int64_t sampled_ns = 0;
  BoundTimes bound_ns{};
  core::Bound bound = core::Bound::Unknown;
  std::size_t prev = kNone;
  std::size_t next = kNone;
  bool alive = true;
};

auto initial_runs(std::span<const SampleBin> bins) -> std::vector<Run> {
  std::vector<Run> runs;
  for (std::size_t i = 0; i < bins.size(); ++i) {
    const SampleBin& b = bins[i];
    if (runs.empty() || runs.back().bound != b.bound) {
      Run run{.first = i, .last = i, .bound = b.bound};
      if (!runs.empty()) {
        run.prev = runs.size() - 1;
        runs.back().next = runs.size();
      }
      runs.push_back(run);
    }
    Run& run = runs.back();
    run.last = i;
    run.sampled_ns += b.sampled_ns();
    for (std::size_t c = 0; c < run.bound_ns.size(); ++c) run.bound_ns[c] += b.bound_ns[c];
  }
  return runs;
}

/// Moves `from` into `into` (adjacent runs); `into` keeps its links on the far side.
void absorb(std::vector<Run>& runs, std::size_t into, std::size_t from) {
  Run& a = runs[into];
  Run& b = runs[from];
  a.first = std::min(a.first, b.first);
  a.last = std::max(a.last, b.last);
  a.sampled_ns += b.sampled_ns;
  for (std::size_t i = 0; i < a.bound_ns.size(); ++i) a.bound_ns[i] += b.bound_ns[i];
  a.bound = dominant_bound(a.bound_ns, a.bound);
  if (b.prev == into) {
    a.next = b.next;
    if (b.next != kNone) runs[b.next].prev = into;
  } else {
    a.prev = b.prev;
    if (b.prev != kNone) runs[b.prev].next = into;
  }
  b.alive = false;
}

/// Merges `at` with neighbours of its class; returns the surviving run.
auto merge_same_class(std::vector<Run>& runs, std::size_t at) -> std::size_t {
  while (runs[at].prev != kNone && runs[runs[at].prev].bound == runs[at].bound) {
    const std::size_t prev = runs[at].prev;
    absorb(runs, prev, at);
    at = prev;
  }
  while (runs[at].next != kNone && runs[runs[at].next].bound == runs[at].bound) {
    absorb(runs, at, runs[at].next);
  }
  return at;
}

void merge_short_runs(std::vector<Run>& runs, std::int64_t min_phase_ns) {
  using Key = std::tuple<std::int64_t, std::size_t, std::size_t>;  // sampled_ns, first bin, run
  std::priority_queue<Key, std::vector<Key>, std::greater<>> heap;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].sampled_ns < min_phase_ns) heap.emplace(runs[i].sampled_ns, runs[i].first, i);
  }
  while (!heap.empty()) {
    const auto [sampled, first, at] = heap.top();
    heap.pop();
    const Run& run = runs[at];
    if (!run.alive || run.sampled_ns != sampled || run.first != first) continue;  // stale entry
    if (run.prev == kNone && run.next == kNone) break;                            // the only run left
    std::size_t into = run.prev;
    if (into == kNone || (run.next != kNone && runs[run.next].sampled_ns > runs[into].sampled_ns)) {
      into = run.next;
    }
    absorb(runs, into, at);
    const std::size_t kept = merge_same_class(runs, into);
    if (runs[kept].sampled_ns < min_phase_ns) heap.emplace(runs[kept].sampled_ns, runs[kept].first, kept);
  }
}

template <std::size_t N>
auto longest(const std::array<double, N>& times) -> std::size_t {
  std::size_t best = N;
  for (std::size_t i = 0; i < N; ++i) {
    if (times[i] > 0.0 && (best == N || times[i] > times[best])) best = i;
  }
  return best;
}

}  // namespace

auto min_phase_ns(std::int64_t sampled_ns) -> std::int64_t {
  const auto share = static_cast<std::int64_t>(static_cast<double>(sampled_ns) * kMinPhaseShare);
  return std::max(kMinPhaseNs, share);
}

auto bin_figures(std::span<const SampleBin> bins) -> Figures {
  SampleBin all;
  for (const SampleBin& b : bins) all.merge(b);
  Figures f;
  f.compute_sol_pct = all.compute.value();
  f.compute_pipe = static_cast<core::Pipe>(longest(all.pipe_ns));
  f.memory_sol_pct = all.memory.value();
  f.memory_path = static_cast<core::MemPath>(longest(all.path_ns));
  f.gpu_util_pct = all.util.value();
  f.sm_active_pct = all.sm_active.value();
  f.mean_power_w = all.power.value();
  f.power_known_ns = static_cast<std::int64_t>(all.power.weight);
  f.energy_j =
      all.power.weight > 0.0 ? all.power.weighted_sum / static_cast<double>(core::kNsPerS) : core::kUnknown;
  return f;
}

auto detect_phases(std::span<const PhasePoint> points, std::int64_t min_phase_ns) -> std::vector<Phase> {
  const std::vector<SampleBin> bins = bins_of(points);
  return detect_bin_phases(bins, min_phase_ns);
}

auto detect_bin_phases(std::span<const SampleBin> bins, std::int64_t min_phase_ns) -> std::vector<Phase> {
  std::vector<Run> runs = initial_runs(bins);
  merge_short_runs(runs, min_phase_ns);
  std::vector<Phase> phases;
  for (std::size_t at = runs.empty() ? kNone : 0; at != kNone; at = runs[at].next) {
    while (!runs[at].alive) ++at;  // the head may have been absorbed by its successor
    const Run& run = runs[at];
    const auto span = bins.subspan(run.first, run.last - run.first + 1);
    std::uint64_t samples = 0;
    for (const SampleBin& b : span) samples += b.samples;
    phases.push_back(Phase{.bound = run.bound,
                           .start_ns = span.front().t_start_ns,
                           .end_ns = span.back().t_end_ns,
                           .sampled_ns = run.sampled_ns,
                           .samples = samples,
                           .bound_ns = run.bound_ns,
                           .figures = bin_figures(span)});
  }
  return phases;
}

}  // namespace solscope::report
