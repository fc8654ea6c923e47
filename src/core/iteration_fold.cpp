#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/derive.hpp"
#include "core/detail/iteration_fold.hpp"
#include "core/detail/iteration_period.hpp"

namespace solscope::core::detail {
namespace {

constexpr std::size_t kBins = kIterationStripBins;
constexpr double kInf = std::numeric_limits<double>::infinity();

auto activity_of(const IterationPoint& p) -> double {
  return p.activity;
}
auto link_of(const IterationPoint& p) -> double {
  return p.interconnect;
}
using Field = double (*)(const IterationPoint&);

/// Times are ns from the first point's start, as doubles (a window is far below 2^53 ns).
auto centre_ns(const IterationPoint& p, std::int64_t t0_ns) -> double {
  return static_cast<double>(p.t_start_ns - t0_ns) + 0.5 * static_cast<double>(p.t_end_ns - p.t_start_ns);
}

/// Upward crossings of `level` between consecutive points at most one sample apart (one missing sample),
/// interpolated between the points' centres: for box-averaged samples of a step without a gap that is within
/// 9% of a sample of the step.
auto upward_crossings(std::span<const IterationPoint> points, Field field, double level)
    -> std::vector<double> {
  std::vector<double> out;
  const std::int64_t t0 = points.front().t_start_ns;
  for (std::size_t i = 1; i < points.size(); ++i) {
    const IterationPoint& p = points[i - 1];
    const IterationPoint& q = points[i];
    const double vp = field(p);
    const double vq = field(q);
    if (!(vp < level && vq >= level) || q.t_start_ns - p.t_end_ns > p.t_end_ns - p.t_start_ns) continue;
    const double cp = centre_ns(p, t0);
    out.push_back(cp + (centre_ns(q, t0) - cp) * (level - vp) / (vq - vp));
  }
  return out;
}

/// The value in sorted `c` nearest `t` within +-w; NaN when none.
auto nearest(const std::vector<double>& c, double t, double w) -> double {
  const auto it = std::lower_bound(c.begin(), c.end(), t);
  double best = kUnknown;
  if (it != c.end() && *it - t <= w) best = *it;
  if (it != c.begin() && t - *(it - 1) <= w && (std::isnan(best) || t - *(it - 1) < best - t))
    best = *(it - 1);
  return best;
}

/// The interconnect rate at or above which it is busy (kIterationBusyLevel, kIterationFlatLinkShare):
/// +inf = never, -inf = always.
auto busy_level(std::span<const IterationPoint> points) -> double {
  std::vector<double> v;
  for (const IterationPoint& p : points) {
    if (std::isfinite(p.interconnect)) v.push_back(p.interconnect);
  }
  if (v.empty()) return kInf;
  const auto at = [&v](double q) {
    const auto it = v.begin() + static_cast<std::ptrdiff_t>(q * static_cast<double>(v.size() - 1));
    std::nth_element(v.begin(), it, v.end());
    return *it;
  };
  const double lo = at(0.02);
  const double hi = at(0.98);
  if (hi < kIterationInterconnectFloorBytesPerS) return kInf;
  if (hi - lo < kIterationFlatLinkShare * hi)
    return lo >= kIterationInterconnectFloorBytesPerS ? -kInf : kInf;
  return lo + kIterationBusyLevel * (hi - lo);
}

/// Communication when the interconnect is busy and the sample is not compute- or memory-bound; else its
/// bound class, Unknown (no SOL figures) counted as Latency when active, Idle when not.
auto part_of(const IterationPoint& p, bool busy) -> IterationPart {
  if (busy && p.bound != Bound::Compute && p.bound != Bound::Memory) return IterationPart::Communication;
  switch (p.bound) {
    case Bound::Compute:
      return IterationPart::Compute;
    case Bound::Memory:
      return IterationPart::Memory;
    case Bound::Latency:
      return IterationPart::Latency;
    case Bound::Idle:
      return IterationPart::Idle;
    case Bound::Unknown:
      break;
  }
  return p.activity < kIdleThresholdPct ? IterationPart::Idle : IterationPart::Latency;
}

/// The mean of `field` per phase bin, folded uniformly from the first point (NaN when no point has it).
auto uniform_profile(std::span<const IterationPoint> points, Field field, double period_ns)
    -> std::array<double, kBins> {
  std::array<double, kBins> sum{};
  std::array<double, kBins> n{};
  for (const IterationPoint& p : points) {
    const double v = field(p);
    if (!std::isfinite(v)) continue;
    const double phase = std::fmod(centre_ns(p, points.front().t_start_ns) / period_ns, 1.0);
    const auto b = std::min(kBins - 1, static_cast<std::size_t>(phase * static_cast<double>(kBins)));
    sum[b] += v;
    n[b] += 1;
  }
  for (std::size_t b = 0; b < kBins; ++b) sum[b] = n[b] > 0 ? sum[b] / n[b] : kUnknown;
  for (std::size_t k = 1; k < 2 * kBins; ++k) {  // an empty bin takes the bin before it (period ~ k samples)
    if (std::isnan(sum[k % kBins])) sum[k % kBins] = sum[(k - 1) % kBins];
  }
  return sum;
}

/// Each iteration's start over the window (ns from the first point): at the steepest rise of the activity's
/// folded profile (the interconnect's when the activity does not vary), each found at the series' upward
/// crossing of the profile's mid level nearest where the previous start predicts it. `found` false =
/// predicted.
struct Chain {
  std::vector<double> start_ns;
  std::vector<bool> found;
};

auto iteration_starts(std::span<const IterationPoint> points, double period_ns) -> Chain {
  Field field = activity_of;
  auto profile = uniform_profile(points, field, period_ns);
  const auto range = [&profile] {
    double lo = kInf;
    double hi = -kInf;
    for (double v : profile) {
      if (std::isnan(v)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    return std::array<double, 2>{lo, hi};
  };
  if (auto r = range(); !(r[1] - r[0] >= kIterationFlatShare * 100.0)) {
    field = link_of;
    profile = uniform_profile(points, field, period_ns);
  }
  const auto [lo, hi] = range();
  std::size_t edge = 0;
  double rise = -kInf;
  for (std::size_t b = 0; b < kBins; ++b) {
    const double d = profile[b] - profile[(b + kBins - 1) % kBins];
    if (d > rise) {
      rise = d;
      edge = b;
    }
  }
  const auto crossings = upward_crossings(points, field, 0.5 * (lo + hi));
  const double last_ns = static_cast<double>(points.back().t_end_ns - points.front().t_start_ns);
  Chain chain;
  for (double pred = static_cast<double>(edge) / kBins * period_ns; pred <= last_ns;) {
    const double c = nearest(crossings, pred, kIterationSearchShare * period_ns);
    chain.start_ns.push_back(std::isnan(c) ? pred : c);
    chain.found.push_back(!std::isnan(c));
    pred = chain.start_ns.back() + period_ns;
  }
  return chain;
}

/// Standard deviation of the lengths between consecutive found starts; NaN with fewer than 2.
auto jitter_s(const Chain& c) -> double {
  std::vector<double> len;
  for (std::size_t j = 1; j < c.start_ns.size(); ++j) {
    if (c.found[j] && c.found[j - 1]) len.push_back(c.start_ns[j] - c.start_ns[j - 1]);
  }
  if (len.size() < 2) return kUnknown;
  double mean = 0;
  for (double l : len) mean += l;
  mean /= static_cast<double>(len.size());
  double var = 0;
  for (double l : len) var += (l - mean) * (l - mean);
  return std::sqrt(var / static_cast<double>(len.size() - 1)) / static_cast<double>(kNsPerS);
}

struct Folded {
  std::array<std::array<double, kIterationPartCount>, kBins> part{};
  std::array<double, kBins> busy{};
  std::array<double, kBins> total{};
  std::array<double, kIterationPartCount> part_total{};
  double busy_total = 0;
  double total_all = 0;
};

/// Adds `amount` spread evenly over phases [fa, fb) (in periods, wrapping) to the bins through `add`.
template <typename Add>
void spread(double fa, double fb, double amount, Add add) {
  const auto bins = static_cast<double>(kBins);
  const auto wrap = [](double cell) {
    const auto k = static_cast<std::int64_t>(cell) % static_cast<std::int64_t>(kBins);
    return static_cast<std::size_t>(k < 0 ? k + static_cast<std::int64_t>(kBins) : k);
  };
  if (!(fb > fa)) return add(wrap(std::floor(fa * bins)), amount);
  if (fb - fa >= 1.0) {
    for (std::size_t b = 0; b < kBins; ++b) add(b, amount / bins);
    return;
  }
  const double start = fa * bins;
  const double end = fb * bins;
  for (double x = start; x < end;) {
    const double cell = std::floor(x);
    const double next = std::min(end, cell + 1);
    add(wrap(cell), amount * (next - x) / (end - start));
    x = next;
  }
}

/// Every point's time by part and busy interconnect, per phase bin of its own iteration (the chain's starts
/// at phase 0: jitter and drift do not blur the fold).
auto fold(std::span<const IterationPoint> points, const Chain& c, double period_ns, double level) -> Folded {
  Folded f;
  const std::int64_t t0 = points.front().t_start_ns;
  for (const IterationPoint& p : points) {
    const double d = static_cast<double>(p.t_end_ns - p.t_start_ns);
    if (!(d > 0)) continue;
    const bool busy = p.interconnect >= level;
    const IterationPart part = part_of(p, busy);
    const auto it = std::upper_bound(c.start_ns.begin(), c.start_ns.end(), centre_ns(p, t0));
    const std::size_t j =
        it == c.start_ns.begin() ? 0 : static_cast<std::size_t>(it - c.start_ns.begin()) - 1;
    const double len = j + 1 < c.start_ns.size() ? c.start_ns[j + 1] - c.start_ns[j] : period_ns;
    const double a = static_cast<double>(p.t_start_ns - t0) - c.start_ns[j];
    spread(a / len, (a + d) / len, d, [&](std::size_t b, double w) {
      f.part[b][static_cast<std::size_t>(part)] += w;
      f.total[b] += w;
      if (busy) f.busy[b] += w;
    });
    f.part_total[static_cast<std::size_t>(part)] += d;
    f.total_all += d;
    if (busy) f.busy_total += d;
  }
  return f;
}

/// The longest circular run of true bins: {start, length}.
auto longest_run(const std::array<bool, kBins>& on) -> std::array<std::size_t, 2> {
  std::array<std::size_t, 2> best{0, 0};
  if (std::all_of(on.begin(), on.end(), [](bool b) { return b; })) return {0, kBins};
  for (std::size_t b = 0; b < kBins; ++b) {
    if (!on[b] || on[(b + kBins - 1) % kBins]) continue;  // not a run's start
    std::size_t n = 0;
    while (on[(b + n) % kBins]) ++n;
    if (n > best[1]) best = {b, n};
  }
  return best;
}

auto strip_of(const Folded& f) -> std::array<IterationPart, kBins> {
  std::array<IterationPart, kBins> part{};
  std::array<bool, kBins> quiet{};
  std::size_t last = kBins;
  for (std::size_t k = 0; k < 2 * kBins; ++k) {  // twice round: an empty bin takes the part before it
    const std::size_t b = k % kBins;
    if (f.total[b] > 0) {
      const auto& t = f.part[b];
      part[b] = static_cast<IterationPart>(std::max_element(t.begin(), t.end()) - t.begin());
      last = b;
    } else if (last != kBins) {
      part[b] = part[last];
    }
  }
  for (std::size_t b = 0; b < kBins; ++b) {
    quiet[b] = part[b] == IterationPart::Idle || part[b] == IterationPart::Communication;
  }
  const auto run = longest_run(quiet);
  const std::size_t start = run[1] > 0 && run[1] < kBins ? (run[0] + run[1]) % kBins : 0;
  std::array<IterationPart, kBins> strip{};
  for (std::size_t i = 0; i < kBins; ++i) strip[i] = part[(start + i) % kBins];
  return strip;
}

/// Epoch ns of the newest communication start mod the period, in seconds; NaN when there is none.
auto communication_offset_s(std::span<const IterationPoint> points, const Chain& c, const Folded& f,
                            double period_ns, double level) -> double {
  std::array<bool, kBins> busy{};
  for (std::size_t b = 0; b < kBins; ++b) busy[b] = f.total[b] > 0 && f.busy[b] >= 0.5 * f.total[b];
  const auto run = longest_run(busy);
  if (run[1] == 0 || run[1] == kBins || c.start_ns.empty()) return kUnknown;
  const double phase = static_cast<double>(run[0]) / kBins;
  const double last_ns = static_cast<double>(points.back().t_end_ns - points.front().t_start_ns);
  double predicted = kUnknown;
  for (std::size_t j = c.start_ns.size(); j-- > 0;) {
    const double len = j + 1 < c.start_ns.size() ? c.start_ns[j + 1] - c.start_ns[j] : period_ns;
    predicted = c.start_ns[j] + phase * len;
    if (predicted <= last_ns) break;
  }
  const double seen =
      nearest(upward_crossings(points, link_of, level), predicted, kIterationSearchShare * period_ns);
  const double start_ns = std::isnan(seen) ? predicted : seen;
  const auto p_ns = static_cast<std::int64_t>(std::llround(period_ns));
  std::int64_t offset = (points.front().t_start_ns + std::llround(start_ns)) % p_ns;
  if (offset < 0) offset += p_ns;
  return static_cast<double>(offset) / static_cast<double>(kNsPerS);
}

}  // namespace

void fold_iteration(std::span<const IterationPoint> points, double period_s, IterationEstimate& out) {
  const double period_ns = period_s * static_cast<double>(kNsPerS);
  const Chain chain = iteration_starts(points, period_ns);
  if (chain.start_ns.empty()) return;  // a period longer than the window: find_period refuses it first
  out.jitter_s = jitter_s(chain);
  const double level = busy_level(points);
  const Folded f = fold(points, chain, period_ns, level);
  if (!(f.total_all > 0)) return;
  for (std::size_t k = 0; k < kIterationPartCount; ++k) out.part_ratio[k] = f.part_total[k] / f.total_all;
  out.compute_ratio = out.part_ratio[static_cast<std::size_t>(IterationPart::Compute)] +
                      out.part_ratio[static_cast<std::size_t>(IterationPart::Memory)] +
                      out.part_ratio[static_cast<std::size_t>(IterationPart::Latency)];
  out.communication_ratio = f.busy_total / f.total_all;
  out.exposed_communication_ratio = out.part_ratio[static_cast<std::size_t>(IterationPart::Communication)];
  out.communication_offset_s = communication_offset_s(points, chain, f, period_ns, level);
  out.strip = strip_of(f);
}

}  // namespace solscope::core::detail
