#include "data/synthetic/iteration_load.hpp"

#include <algorithm>
#include <random>

namespace solscope::synthetic {
namespace {

/// The overlap of [a, b) and [c, d).
auto overlap(double a, double b, double c, double d) -> double {
  return std::max(0.0, std::min(b, d) - std::max(a, c));
}

}  // namespace

auto training_starts(const TrainingShape& shape) -> std::vector<double> {
  std::mt19937_64 rng(shape.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> starts{shape.first_start_s};
  while (starts.front() > 0) starts.insert(starts.begin(), starts.front() - shape.period_s);
  while (starts.back() <= shape.seconds) {
    const double t = starts.back();
    const double period = shape.period_s * (1.0 + shape.drift_pct / 100.0 * std::max(0.0, t) / shape.seconds);
    const double jitter = std::clamp(normal(rng), -3.0, 3.0) * shape.jitter_pct / 100.0;
    starts.push_back(t + period * (1.0 + jitter));
  }
  return starts;
}

auto training_shares(const TrainingShape& shape, const std::vector<double>& starts, double a_s, double b_s)
    -> PhaseShares {
  PhaseShares s;
  const double width = b_s - a_s;
  if (!(width > 0)) return s;
  auto it = std::upper_bound(starts.begin(), starts.end(), a_s);
  if (it != starts.begin()) --it;
  for (; it + 1 < starts.end() && *it < b_s; ++it) {
    const double len = *(it + 1) - *it;
    const double c_end = *it + shape.compute_share * len;
    const double m_end = c_end + shape.communication_share * len;
    s.compute += overlap(a_s, b_s, *it, c_end) / width;
    s.communication += overlap(a_s, b_s, c_end, m_end) / width;
  }
  s.idle = std::max(0.0, 1.0 - s.compute - s.communication);
  return s;
}

auto serving_busy(const ServingShape& shape) -> std::vector<std::pair<double, double>> {
  std::mt19937_64 rng(shape.seed);
  std::exponential_distribution<double> gap(shape.requests_per_s);
  std::uniform_real_distribution<double> busy(shape.min_busy_s, shape.max_busy_s);
  std::vector<std::pair<double, double>> out;
  for (double t = gap(rng); t < shape.seconds; t += gap(rng)) {
    const double end = t + busy(rng);
    if (!out.empty() && t <= out.back().second) {
      out.back().second = std::max(out.back().second, end);
    } else {
      out.emplace_back(t, end);
    }
  }
  return out;
}

auto busy_share(const std::vector<std::pair<double, double>>& busy, double a_s, double b_s) -> double {
  if (!(b_s > a_s)) return 0.0;
  double sum = 0.0;
  auto it = std::lower_bound(busy.begin(), busy.end(), std::pair<double, double>{a_s, a_s},
                             [](const auto& x, const auto& y) { return x.second < y.first; });
  for (; it != busy.end() && it->first < b_s; ++it) sum += overlap(a_s, b_s, it->first, it->second);
  return sum / (b_s - a_s);
}

}  // namespace solscope::synthetic
