// Iteration boundaries of one GPU's kernels: the NVTX rule and the kernel-sequence rule
// (docs/design/sol-metrics.md section 13).
#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/detail/kernel_sequence.hpp"
#include "core/stats.hpp"

namespace solscope::core::detail {
namespace {

/// The processes that launched kernels on this GPU, sorted.
auto kernel_pids(const DeviceKernels& ks) -> std::vector<std::int32_t> {
  std::vector<std::int32_t> pids;  // a handful: one per process that uses the GPU
  for (const KernelRecord* k : ks.order) {
    if (std::find(pids.begin(), pids.end(), k->pid) == pids.end()) pids.push_back(k->pid);
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

/// The depth-0 range name opened most often (ties: the smallest name), or empty below kMinIterations.
auto commonest_outer_range(std::span<const MarkerRecord* const> ranges) -> std::string {
  std::map<std::string_view, std::size_t> counts;
  for (const MarkerRecord* m : ranges) {
    if (m->depth == 0) ++counts[m->name];
  }
  std::string_view best;
  std::size_t best_count = 0;
  for (const auto& [name, count] : counts) {
    if (count > best_count) {
      best = name;
      best_count = count;
    }
  }
  return best_count >= kMinIterations ? std::string(best) : std::string();
}

/// The median of the distances p[j + m] - p[j] over at most kMaxDistancePairs evenly spread j; 0 if none.
auto median_distance(std::span<const std::size_t> p, std::size_t m) -> std::size_t {
  if (p.size() <= m) return 0;
  const std::size_t pairs = p.size() - m;
  const std::size_t stride = std::max<std::size_t>(1, pairs / kMaxDistancePairs);
  std::vector<std::size_t> d;
  for (std::size_t j = 0; j < pairs; j += stride) d.push_back(p[j + m] - p[j]);
  return upper_median(d);
}

/// Whether `ids` repeat at `lag` (>= kSequenceMatchRatio equal over the compared window).
auto repeats_at(std::span<const std::uint32_t> ids, std::size_t lag) -> bool {
  const std::size_t comparable = ids.size() - lag;
  const std::size_t window = std::min(comparable, std::max(kMaxComparedKernels, 2 * lag));
  const std::size_t first = (comparable - window) / 2;
  const auto allowed = static_cast<std::size_t>(static_cast<double>(window) * (1.0 - kSequenceMatchRatio));
  std::size_t misses = 0;
  for (std::size_t i = first; i < first + window; ++i) {
    if (ids[i] != ids[i + lag] && ++misses > allowed) return false;
  }
  return true;
}

/// The candidate lags: distances between occurrences of the commonest id (1..kMaxAnchorRepeats apart) and
/// between consecutive occurrences of the kRareAnchors rarest ids that repeat kMinIterations times.
auto candidate_lags(std::span<const std::uint32_t> ids, std::size_t id_count) -> std::vector<std::size_t> {
  std::vector<std::size_t> counts(id_count, 0);
  for (std::uint32_t id : ids) ++counts[id];
  std::vector<std::uint32_t> anchors(id_count);
  for (std::uint32_t i = 0; i < id_count; ++i) anchors[i] = i;
  std::sort(anchors.begin(), anchors.end(), [&counts](std::uint32_t a, std::uint32_t b) {
    return counts[a] < counts[b] || (counts[a] == counts[b] && a < b);
  });
  std::erase_if(anchors, [&counts](std::uint32_t a) { return counts[a] < kMinIterations; });
  if (anchors.empty()) return {};
  const std::uint32_t commonest = anchors.back();
  anchors.resize(std::min(anchors.size(), kRareAnchors));
  anchors.push_back(commonest);
  std::unordered_map<std::uint32_t, std::vector<std::size_t>> positions;
  for (std::uint32_t a : anchors) positions[a];
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (auto it = positions.find(ids[i]); it != positions.end()) it->second.push_back(i);
  }
  std::vector<std::size_t> lags;
  for (const auto& [id, p] : positions) {
    const std::size_t reach = id == commonest ? kMaxAnchorRepeats : 1;
    for (std::size_t m = 1; m <= reach && m < p.size(); ++m) lags.push_back(median_distance(p, m));
  }
  std::sort(lags.begin(), lags.end());
  lags.erase(std::unique(lags.begin(), lags.end()), lags.end());
  return lags;
}

/// The mean idle gap of the GPU before each position of the cycle (the first kernel has none).
auto gap_before(const DeviceKernels& ks) -> std::vector<std::int64_t> {
  std::vector<std::int64_t> gap(ks.order.size(), 0);
  std::int64_t busy_until = ks.order.front()->end_ns;
  for (std::size_t i = 1; i < ks.order.size(); ++i) {
    gap[i] = std::max<std::int64_t>(0, ks.order[i]->start_ns - busy_until);
    busy_until = std::max(busy_until, ks.order[i]->end_ns);
  }
  return gap;
}

/// Where the first whole iteration starts: the name with the longest mean idle gap before it (among names
/// seen kMinIterations times; ties: the first seen), at its position in its first cycle whose counterpart
/// one lag later follows the longest gap. By name rather than by position modulo the lag, so that a cycle
/// with an extra or a missing kernel does not shift the choice.
auto first_boundary(const DeviceKernels& ks, std::span<const std::int64_t> gap, std::size_t lag)
    -> std::size_t {
  const std::size_t id_count = ks.id_collective.size();
  std::vector<double> sum(id_count, 0.0);
  std::vector<std::size_t> count(id_count, 0);
  for (std::size_t i = 1; i < gap.size(); ++i) {
    sum[ks.ids[i]] += static_cast<double>(gap[i]);
    ++count[ks.ids[i]];
  }
  std::uint32_t best_id = ks.ids[0];
  double best_mean = -1.0;
  for (std::uint32_t id = 0; id < id_count; ++id) {
    if (count[id] + 1 < kMinIterations) continue;
    const double mean = sum[id] / static_cast<double>(std::max<std::size_t>(1, count[id]));
    if (mean > best_mean) {
      best_id = id;
      best_mean = mean;
    }
  }
  const auto first =
      static_cast<std::size_t>(std::find(ks.ids.begin(), ks.ids.end(), best_id) - ks.ids.begin());
  std::size_t best = first;
  std::int64_t best_gap = -1;
  for (std::size_t j = first; j < std::min(first + lag, gap.size()); ++j) {
    if (ks.ids[j] != best_id) continue;
    const std::int64_t g = j + lag < gap.size() ? gap[j + lag] : gap[j];
    if (g > best_gap) {
      best = j;
      best_gap = g;
    }
  }
  return best;
}

}  // namespace

auto device_kernels(std::uint32_t device, std::span<const KernelRecord> kernels) -> DeviceKernels {
  DeviceKernels ks;
  for (const KernelRecord& k : kernels) {
    if (k.device == device) ks.order.push_back(&k);
  }
  const auto by_start = [](const KernelRecord* a, const KernelRecord* b) {
    return a->start_ns < b->start_ns;
  };
  if (!std::is_sorted(ks.order.begin(), ks.order.end(), by_start)) {  // a log is mostly sorted already
    std::stable_sort(ks.order.begin(), ks.order.end(), by_start);
  }
  std::unordered_map<std::string_view, std::uint32_t> id_of;
  ks.ids.reserve(ks.order.size());
  for (const KernelRecord* k : ks.order) {
    const auto [it, added] = id_of.try_emplace(k->name, static_cast<std::uint32_t>(id_of.size()));
    if (added) ks.id_collective.push_back(classify_kernel(k->name));
    ks.ids.push_back(it->second);
  }
  return ks;
}

auto nvtx_boundaries(const DeviceKernels& ks, std::span<const MarkerRecord> markers,
                     const StepOptions& options, KernelSteps& out)
    -> std::optional<std::vector<std::size_t>> {
  if (markers.empty() && options.nvtx_range.empty()) return std::nullopt;
  const std::vector<std::int32_t> pids = kernel_pids(ks);
  std::vector<const MarkerRecord*> ranges;
  for (const MarkerRecord& m : markers) {
    if (!m.is_mark() && std::binary_search(pids.begin(), pids.end(), m.pid)) ranges.push_back(&m);
  }
  const std::string name = options.nvtx_range.empty() ? commonest_outer_range(ranges) : options.nvtx_range;
  std::vector<std::int64_t> opened;
  for (const MarkerRecord* m : ranges) {
    if (!name.empty() && m->name == name) opened.push_back(m->start_ns);
  }
  if (opened.empty()) {
    if (!options.nvtx_range.empty()) {
      out.note = "no NVTX range named \"" + options.nvtx_range + "\" from this GPU's processes";
    }
    return std::nullopt;
  }
  std::sort(opened.begin(), opened.end());
  out.boundary = StepBoundary::Nvtx;
  out.nvtx_range = name;
  std::vector<std::size_t> starts;
  std::size_t step = 0;  // steps opened at or before the kernel's start
  std::size_t last_step = 0;
  for (std::size_t i = 0; i < ks.order.size(); ++i) {
    while (step < opened.size() && opened[step] <= ks.order[i]->start_ns) ++step;
    if (step > last_step) starts.push_back(i);  // the first kernel of a step (kernels before any: none)
    last_step = step;
  }
  return starts;
}

auto repeat_lag(std::span<const std::uint32_t> ids, std::size_t id_count) -> std::size_t {
  const std::size_t max_lag = ids.size() / kMinIterations;
  for (std::size_t lag : candidate_lags(ids, id_count)) {
    if (lag == 0 || lag > max_lag) continue;
    if (!repeats_at(ids, lag)) continue;
    for (std::size_t k = lag / 2; k >= 2; --k) {  // a shorter period that the candidates missed
      if (lag % k == 0 && repeats_at(ids, lag / k)) return lag / k;
    }
    return lag;
  }
  return 0;
}

auto sequence_boundaries(const DeviceKernels& ks, KernelSteps& out) -> std::vector<std::size_t> {
  const std::size_t lag = repeat_lag(ks.ids, ks.id_collective.size());
  if (lag == 0) {
    out.note = "no repeating kernel sequence (none repeats " + std::to_string(kMinIterations) +
               " times with 90 % of names equal) and no NVTX step range";
    return {};
  }
  out.boundary = StepBoundary::KernelSequence;
  const std::vector<std::int64_t> gap = gap_before(ks);
  const std::size_t phase = first_boundary(ks, gap, lag);
  const std::uint32_t first_id = ks.ids[phase];
  std::vector<std::size_t> starts{phase};
  const std::size_t slack = std::max<std::size_t>(1, lag / 4);
  for (std::size_t b = phase; b + lag < ks.ids.size();) {
    std::size_t next = b + lag;
    if (ks.ids[next] != first_id) {  // the cycle drifted: the same kernel nearby with the longest gap
      const std::size_t lo = std::max(b + 1, next - slack);
      const std::size_t hi = std::min(ks.ids.size(), next + slack + 1);
      for (std::size_t j = lo; j < hi; ++j) {
        if (ks.ids[j] == first_id && (ks.ids[next] != first_id || gap[j] > gap[next])) next = j;
      }
      out.note = "the kernel sequence varies between iterations: boundaries are approximate";
    }
    starts.push_back(next);
    b = next;
  }
  return starts;
}

}  // namespace solscope::core::detail
