// SYNTHETIC iteration loads: a training job (iterations of compute, communication and idle, with jitter and
// drift) and a serving job (Poisson-arriving request bursts). Pure (standard library only), so that the core
// tests build IterationPoints from them and the generator's `training` and `serving` profiles write traces
// from the same schedule. Every figure is made up.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace solscope::synthetic {

/// The knobs of the generator's `training` profile (`--period`, `--jitter-pct`, `--drift-pct`,
/// `--noise-pct`).
struct IterationOptions {
  double period_s = 1.0;    ///< the first iteration's length, seconds
  double jitter_pct = 0.0;  ///< TrainingShape::jitter_pct
  double drift_pct = 0.0;   ///< TrainingShape::drift_pct
  double noise_pct = 0.0;   ///< std dev of normal noise on every busy figure, % of the figure's busy level
};

/// A training job: each iteration computes, then communicates (an all-reduce the SMs wait for), then idles.
struct TrainingShape {
  double period_s = 1.0;             ///< the first iteration's length, seconds
  double compute_share = 0.7;        ///< of each iteration, 0-1
  double communication_share = 0.2;  ///< of each iteration, after the compute; the rest is idle
  double jitter_pct = 0.0;     ///< std dev of each iteration's length, % of its period (normal, +-3 sigma)
  double drift_pct = 0.0;      ///< the period grows linearly by this % over `seconds`
  double first_start_s = 0.0;  ///< an iteration starts here (seconds from the trace start)
  double seconds = 30.0;       ///< the schedule covers [0, seconds]
  std::uint64_t seed = 1;
};

/// Each iteration's start, seconds from the trace start, ascending: the first at or before 0, the last after
/// `seconds` (it closes the one before).
[[nodiscard]] auto training_starts(const TrainingShape& shape) -> std::vector<double>;

/// How [a_s, b_s) divides between compute, communication and idle, 0-1 each, summing to 1.
struct PhaseShares {
  double compute = 0.0;
  double communication = 0.0;
  double idle = 0.0;
};
[[nodiscard]] auto training_shares(const TrainingShape& shape, const std::vector<double>& starts, double a_s,
                                   double b_s) -> PhaseShares;

/// A serving job: requests arrive as a Poisson process, each keeping the GPU busy for a uniform random
/// length; overlapping requests merge into one busy stretch.
struct ServingShape {
  double requests_per_s = 1.5;
  double min_busy_s = 0.05;
  double max_busy_s = 1.2;
  double seconds = 30.0;
  std::uint64_t seed = 7;
};

/// The busy stretches [start, end) in seconds, ascending and disjoint.
[[nodiscard]] auto serving_busy(const ServingShape& shape) -> std::vector<std::pair<double, double>>;

/// The busy share of [a_s, b_s), 0-1.
[[nodiscard]] auto busy_share(const std::vector<std::pair<double, double>>& busy, double a_s, double b_s)
    -> double;

}  // namespace solscope::synthetic
