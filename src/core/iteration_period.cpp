#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/detail/iteration_period.hpp"
#include "core/stats.hpp"

namespace solscope::core::detail {
namespace {

struct Grid {
  std::int64_t sample_ns = 1;  ///< the median sample interval
  std::int64_t t0_ns = 0;
  std::int64_t bin_ns = 1;
  std::size_t bins = 0;
};

auto median_duration_ns(std::span<const IterationPoint> points) -> std::int64_t {
  std::vector<std::int64_t> d;
  d.reserve(points.size());
  for (const IterationPoint& p : points) d.push_back(std::max<std::int64_t>(1, p.t_end_ns - p.t_start_ns));
  return upper_median(d);
}

auto make_grid(std::span<const IterationPoint> points) -> Grid {
  Grid g{.sample_ns = median_duration_ns(points), .t0_ns = points.front().t_start_ns};
  const std::int64_t span_ns = std::max<std::int64_t>(1, points.back().t_end_ns - g.t0_ns);
  const auto max_bins = static_cast<std::int64_t>(kIterationMaxGridBins);
  g.bin_ns = std::max({g.sample_ns, (span_ns + max_bins - 1) / max_bins, std::int64_t{1}});
  g.bins = static_cast<std::size_t>((span_ns + g.bin_ns - 1) / g.bin_ns);
  return g;
}

/// One figure of the points averaged per grid bin (weighted by overlap), gaps filled linearly. Empty when
/// fewer than half the bins hold a known figure.
template <typename Field>
auto resample(std::span<const IterationPoint> points, const Grid& g, Field field) -> std::vector<double> {
  std::vector<double> sum(g.bins, 0.0);
  std::vector<double> weight(g.bins, 0.0);
  for (const IterationPoint& p : points) {
    const double v = field(p);
    if (!std::isfinite(v) || p.t_end_ns <= p.t_start_ns) continue;
    const std::int64_t a = std::max(p.t_start_ns, g.t0_ns) - g.t0_ns;
    const std::int64_t b = p.t_end_ns - g.t0_ns;
    for (std::int64_t i = a / g.bin_ns; i < static_cast<std::int64_t>(g.bins) && i * g.bin_ns < b; ++i) {
      const auto w = static_cast<double>(std::min(b, (i + 1) * g.bin_ns) - std::max(a, i * g.bin_ns));
      sum[static_cast<std::size_t>(i)] += v * w;
      weight[static_cast<std::size_t>(i)] += w;
    }
  }
  std::vector<double> out(g.bins, kUnknown);
  std::size_t known = 0;
  for (std::size_t i = 0; i < g.bins; ++i) {
    if (weight[i] > 0) {
      out[i] = sum[i] / weight[i];
      ++known;
    }
  }
  if (2 * known < g.bins) return {};
  std::size_t last = g.bins;  // the last known bin before i
  for (std::size_t i = 0; i < g.bins; ++i) {
    if (std::isnan(out[i])) continue;
    if (last == g.bins) {
      std::fill(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(i), out[i]);
    } else {
      for (std::size_t j = last + 1; j < i; ++j) {
        out[j] =
            out[last] + (out[i] - out[last]) * static_cast<double>(j - last) / static_cast<double>(i - last);
      }
    }
    last = i;
  }
  std::fill(out.begin() + static_cast<std::ptrdiff_t>(last + 1), out.end(), out[last]);
  return out;
}

/// Removes the mean; false (the series is flat) when the standard deviation is below
/// kIterationFlatShare x `scale`.
auto center(std::vector<double>& x, double scale) -> bool {
  if (x.empty()) return false;
  double mean = 0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(x.size());
  double var = 0;
  for (double& v : x) {
    v -= mean;
    var += v * v;
  }
  return std::sqrt(var / static_cast<double>(x.size())) >= kIterationFlatShare * scale;
}

/// Normalised autocorrelation for lags 0..max_lag: the Pearson correlation of the series with itself shifted
/// by the lag (over the overlap), so 1 at a perfect repeat whatever the lag.
auto autocorrelation(const std::vector<double>& x, std::size_t max_lag) -> std::vector<double> {
  const std::size_t n = x.size();
  std::vector<double> energy(n + 1, 0.0);  // prefix sums of x^2
  for (std::size_t i = 0; i < n; ++i) energy[i + 1] = energy[i] + x[i] * x[i];
  std::vector<double> r(max_lag + 1, 0.0);
  for (std::size_t k = 0; k <= max_lag && k < n; ++k) {
    const std::size_t m = n - k;
    double s[4] = {0, 0, 0, 0};  // four sums: independent adds, vectorisable
    std::size_t i = 0;
    for (; i + 4 <= m; i += 4) {
      for (std::size_t u = 0; u < 4; ++u) s[u] += x[i + u] * x[i + u + k];
    }
    for (; i < m; ++i) s[0] += x[i] * x[i + k];
    const double den = std::sqrt(energy[m] * (energy[n] - energy[k]));
    r[k] = den > 0 ? (s[0] + s[1] + s[2] + s[3]) / den : 0.0;
  }
  return r;
}

struct Peak {
  double lag = kUnknown;  ///< bins, refined
  double value = 0.0;
};

/// The vertex of the parabola through r[i-1], r[i], r[i+1].
auto parabolic(const std::vector<double>& r, std::size_t i) -> Peak {
  const double y0 = r[i - 1];
  const double y1 = r[i];
  const double y2 = r[i + 1];
  const double den = y0 - 2 * y1 + y2;
  const double delta = den < 0 ? std::clamp(0.5 * (y0 - y2) / den, -0.5, 0.5) : 0.0;
  return {.lag = static_cast<double>(i) + delta, .value = y1 - 0.25 * (y0 - y2) * delta};
}

/// Refines the period with the peaks at its multiples: least squares through the origin of lag against m.
auto refine_with_multiples(const std::vector<double>& r, Peak first) -> double {
  double num = first.lag;
  double den = 1.0;
  for (double m = 2;; ++m) {
    const double p = num / den;
    const double w = std::max(1.0, 0.25 * p);
    const auto lo = static_cast<std::size_t>(std::ceil(m * p - w));
    const auto hi = static_cast<std::size_t>(std::floor(m * p + w));
    if (hi + 1 >= r.size()) break;
    const auto at =
        static_cast<std::size_t>(std::max_element(r.begin() + static_cast<std::ptrdiff_t>(lo),
                                                  r.begin() + static_cast<std::ptrdiff_t>(hi + 1)) -
                                 r.begin());
    if (at == lo || at == hi || r[at] < 0.5 * first.value) break;
    num += m * parabolic(r, at).lag;
    den += m * m;
  }
  return num / den;
}

/// The Pearson correlation of `x` with itself shifted by a fractional `lag` (bins; linear interpolation).
auto correlation_at(const std::vector<double>& x, double lag) -> double {
  const auto whole = static_cast<std::size_t>(lag);
  const double frac = lag - static_cast<double>(whole);
  double sxy = 0;
  double sxx = 0;
  double syy = 0;
  for (std::size_t i = 0; i + whole + 1 < x.size(); ++i) {
    const double y = x[i + whole] + frac * (x[i + whole + 1] - x[i + whole]);
    sxy += x[i] * y;
    sxx += x[i] * x[i];
    syy += y * y;
  }
  const double den = std::sqrt(sxx * syy);
  return den > 0 ? sxy / den : 0.0;
}

/// One candidate: the autocorrelation of one series, or the mean of both series' (`series` then holds both).
struct Candidate {
  std::vector<double> r;
  std::vector<const std::vector<double>*> series;
  [[nodiscard]] auto at(double lag) const -> double {
    double sum = 0;
    for (const auto* x : series) sum += correlation_at(*x, lag);
    return sum / static_cast<double>(series.size());
  }
};

/// `p`, or the shortest lag p.lag / m (m = kIterationMaxDivisor..2, after the descent `from`) that repeats
/// nearly as well (kIterationDivisorShare): a period between two bins (k + 1/2 samples) peaks lower at its
/// two bins than the exact repeat at its double, so the double would win the peak search; the correlation at
/// the fractional lag (linear interpolation, which smooths: 0.64-0.93 of the double's on a 2.5-4.5-sample
/// period) tells them apart, a lag that is no period correlating negatively.
auto shortest_divisor(const Candidate& c, Peak p, std::size_t from) -> Peak {
  for (std::size_t m = kIterationMaxDivisor; m >= 2; --m) {
    const double lag = p.lag / static_cast<double>(m);
    if (lag < static_cast<double>(from)) continue;
    const double v = c.at(lag);
    if (v >= kIterationDivisorShare * p.value) return {.lag = lag, .value = v};
  }
  return p;
}

/// The first prominent peak after the first descent (kIterationDescentEnd, kIterationHarmonicShare).
auto pick_peak(const Candidate& c) -> Peak {
  const std::vector<double>& r = c.r;
  std::size_t k = 1;
  while (k < r.size() && r[k] >= kIterationDescentEnd) ++k;
  std::vector<Peak> peaks;  // refined: a peak between two bins compares fairly with one on a bin
  double best = -1.0;
  for (std::size_t i = k + 1; i + 1 < r.size(); ++i) {
    if (r[i] > r[i - 1] && r[i] >= r[i + 1]) {
      peaks.push_back(parabolic(r, i));
      best = std::max(best, peaks.back().value);
    }
  }
  for (Peak p : peaks) {
    if (p.value < kIterationHarmonicShare * best) continue;
    p = shortest_divisor(c, p, k);
    p.lag = refine_with_multiples(r, p);
    return p;
  }
  return {};
}

}  // namespace

auto find_period(std::span<const IterationPoint> points) -> PeriodFit {
  if (points.size() < kIterationMinPoints) return {.note = "too few samples"};
  const Grid g = make_grid(points);
  if (g.bins < kIterationMinPoints) return {.note = "too few samples"};
  auto activity =
      resample(points, g, [](const IterationPoint& p) { return static_cast<double>(p.activity); });
  auto link =
      resample(points, g, [](const IterationPoint& p) { return static_cast<double>(p.interconnect); });
  const double link_max = link.empty() ? 0.0 : *std::max_element(link.begin(), link.end());
  const bool use_activity = center(activity, 100.0);
  const bool use_link = link_max >= kIterationInterconnectFloorBytesPerS && center(link, link_max);
  if (!use_activity && !use_link) return {.note = "no activity change"};
  const auto max_lag = static_cast<std::size_t>(static_cast<double>(g.bins) / kIterationMinRepeats) + 1;
  std::vector<Candidate> candidates;
  if (use_activity) candidates.push_back({autocorrelation(activity, max_lag), {&activity}});
  if (use_link) candidates.push_back({autocorrelation(link, max_lag), {&link}});
  if (candidates.size() == 2) {  // the summary autocorrelation of both series, besides each alone
    std::vector<double> sum(max_lag + 1);
    for (std::size_t k = 0; k <= max_lag; ++k) sum[k] = 0.5 * (candidates[0].r[k] + candidates[1].r[k]);
    candidates.push_back({std::move(sum), {&activity, &link}});
  }
  Peak best;
  for (const Candidate& c : candidates) {
    const Peak p = pick_peak(c);
    if (!std::isnan(p.lag) && p.value > best.value) best = p;
  }
  if (std::isnan(best.lag)) return {.note = "no repeat found"};
  const double period_s = best.lag * static_cast<double>(g.bin_ns) / static_cast<double>(kNsPerS);
  const double confidence = std::clamp(best.value, 0.0, 1.0);
  if (confidence < kIterationMinConfidence) return {.confidence = confidence, .note = "repeat too weak"};
  const double span_s =
      static_cast<double>(points.back().t_end_ns - points.front().t_start_ns) / static_cast<double>(kNsPerS);
  if (period_s * static_cast<double>(kNsPerS) <
      kIterationMinPeriodSamples * static_cast<double>(g.sample_ns)) {
    return {.confidence = confidence, .note = "period under 4 samples"};
  }
  if (period_s * kIterationMinRepeats > span_s) {
    return {.confidence = confidence, .note = "fewer than 3 periods in the window"};
  }
  return {.period_s = period_s, .confidence = confidence};
}

}  // namespace solscope::core::detail
