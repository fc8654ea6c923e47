// The per-iteration unions of one GPU's kernels: compute, communication, exposed communication and the
// collective mix (docs/design/sol-metrics.md section 13). Linear in the kernels: each class's intervals are
// merged once, and the iterations, in time order, clip them with a cursor that only moves forward.
#include <algorithm>
#include <array>

#include "core/detail/kernel_sequence.hpp"

namespace solscope::core::detail {
namespace {

struct Interval {
  std::int64_t start_ns;
  std::int64_t end_ns;
};
using Intervals = std::vector<Interval>;

/// Adds [start, end) to `merged`, whose intervals are disjoint and sorted; starts come in order.
void add(Intervals& merged, std::int64_t start_ns, std::int64_t end_ns) {
  if (end_ns <= start_ns) return;
  if (!merged.empty() && start_ns <= merged.back().end_ns) {
    merged.back().end_ns = std::max(merged.back().end_ns, end_ns);
  } else {
    merged.push_back({start_ns, end_ns});
  }
}

/// `a` minus `b` (both disjoint and sorted).
auto subtract(const Intervals& a, const Intervals& b) -> Intervals {
  Intervals out;
  std::size_t j = 0;
  for (Interval piece : a) {
    while (j < b.size() && b[j].end_ns <= piece.start_ns) ++j;
    for (std::size_t k = j; k < b.size() && b[k].start_ns < piece.end_ns; ++k) {
      if (b[k].start_ns > piece.start_ns) out.push_back({piece.start_ns, b[k].start_ns});
      piece.start_ns = std::max(piece.start_ns, b[k].end_ns);
    }
    if (piece.start_ns < piece.end_ns) out.push_back(piece);
  }
  return out;
}

/// Measures a union inside windows that come in time order and do not overlap.
class Clipper {
 public:
  explicit Clipper(const Intervals& intervals) : intervals_(intervals) {}
  /// ns of the union inside [start_ns, end_ns).
  auto measure(std::int64_t start_ns, std::int64_t end_ns) -> std::int64_t {
    while (next_ < intervals_.size() && intervals_[next_].end_ns <= start_ns) ++next_;
    std::int64_t sum = 0;
    for (std::size_t k = next_; k < intervals_.size() && intervals_[k].start_ns < end_ns; ++k) {
      sum += std::min(end_ns, intervals_[k].end_ns) - std::max(start_ns, intervals_[k].start_ns);
    }
    return sum;
  }

 private:
  const Intervals& intervals_;
  std::size_t next_ = 0;
};

/// The merged intervals of the GPU's compute kernels, its NCCL kernels, and per collective.
struct Unions {
  Intervals compute;
  Intervals communication;
  std::array<Intervals, kCollectiveCount> collective;
};

auto unions(const DeviceKernels& ks) -> Unions {
  Unions u;
  for (std::size_t i = 0; i < ks.order.size(); ++i) {
    const KernelRecord& k = *ks.order[i];
    const Collective c = ks.id_collective[ks.ids[i]];
    if (c == Collective::None) {
      add(u.compute, k.start_ns, k.end_ns);
    } else {
      add(u.communication, k.start_ns, k.end_ns);
      add(u.collective[static_cast<std::size_t>(c)], k.start_ns, k.end_ns);
    }
  }
  return u;
}

}  // namespace

auto measure_iterations(const DeviceKernels& ks, std::span<const std::size_t> starts)
    -> std::vector<KernelIteration> {
  std::vector<KernelIteration> out;
  if (starts.size() < 2) return out;
  const Unions u = unions(ks);
  const Intervals exposed = subtract(u.communication, u.compute);
  Clipper compute(u.compute);
  Clipper communication(u.communication);
  Clipper exposed_clip(exposed);
  std::vector<Clipper> per_collective;
  for (const Intervals& c : u.collective) per_collective.emplace_back(c);
  for (std::size_t k = 0; k + 1 < starts.size(); ++k) {
    KernelIteration it;
    it.start_ns = ks.order[starts[k]]->start_ns;
    it.end_ns = ks.order[starts[k + 1]]->start_ns;
    if (it.end_ns <= it.start_ns) continue;
    it.compute_ns = compute.measure(it.start_ns, it.end_ns);
    it.communication_ns = communication.measure(it.start_ns, it.end_ns);
    it.exposed_communication_ns = exposed_clip.measure(it.start_ns, it.end_ns);
    for (std::size_t c = 0; c < kCollectiveCount; ++c) {
      it.collective_ns[c] = per_collective[c].measure(it.start_ns, it.end_ns);
    }
    it.kernels = static_cast<std::uint32_t>(starts[k + 1] - starts[k]);
    out.push_back(it);
  }
  return out;
}

}  // namespace solscope::core::detail
