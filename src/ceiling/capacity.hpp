// Capacity planning over the serving ceiling (docs/design/ceiling-model.md section 6.6): how many requests in
// flight one TP group holds before throughput stops growing, within memory and latency limits.
//
// sweep_concurrency() evaluates evaluate_serving() on a geometric grid of concurrencies from 1 to the largest
// that fits in memory (found by bisection on ServeCeiling::fits, which grows monotonically with concurrency);
// best_point() picks the grid point with the most output tokens/s among those within the limits, and
// best_concurrency() does both.
//
// Example:
//   ServeTraffic t{.input_tokens = 1024, .output_tokens = 256};
//   auto best = best_concurrency(db, *gpu, arch, Workload{}, t, CapacityLimits{.max_tpot_s = 0.05});
//   // best->concurrency, best->ceiling.output_tokens_per_s
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "ceiling/serving.hpp"

namespace solscope::ceiling {

/// Default number of points of a concurrency sweep (geometric from 1 to the memory limit).
inline constexpr int kDefaultSweepPoints = 30;
/// Fewest and most sweep points accepted.
inline constexpr int kMinSweepPoints = 2;
inline constexpr int kMaxSweepPoints = 1000;
/// Accepted latency limits (CapacityLimits): 1 us to one day.
inline constexpr double kMinLatencyLimitS = 1e-6;
inline constexpr double kMaxLatencyLimitS = 86'400.0;
/// Sweep points whose output tokens/s are within this fraction of the best count as equal; the lowest
/// concurrency among them wins (the same throughput at less latency).
inline constexpr double kThroughputTieFraction = 0.005;

/// Latency limits a chosen concurrency must keep; NaN = no limit. Seconds, kMinLatencyLimitS to
/// kMaxLatencyLimitS.
struct CapacityLimits {
  double max_tpot_s = std::numeric_limits<double>::quiet_NaN();  ///< time per output token after the first
  double max_ttft_s = std::numeric_limits<double>::quiet_NaN();  ///< time to first token
};

/// One evaluated concurrency.
struct SweepPoint {
  std::int64_t concurrency = 1;
  ServeCeiling ceiling;
  bool within_limits = true;  ///< fits in memory and keeps every CapacityLimits bound
};

/// The limits as a user reads them: "TPOT <= 30 ms and TTFT <= 500 ms"; "" without limits.
[[nodiscard]] auto limits_text(const CapacityLimits& limits) -> std::string;

/// Output tokens/s per GPU: ServeCeiling::output_tokens_per_s (the whole group's) over the group's GPUs
/// (Ceiling::gpus of the steps, TP x attention DP x PP).
[[nodiscard]] auto output_tokens_per_s_per_gpu(const ServeCeiling& s) -> double;

/// Tokens/s one user sees while decoding: 1 / TPOT; NaN when osl is 1 (no TPOT).
[[nodiscard]] auto tokens_per_s_per_user(const ServeCeiling& s) -> double;

/// `points` concurrencies from 1 to `top`, as close to geometric as whole numbers allow: exactly
/// min(points, top) values, strictly increasing, 1 and `top` included (1 alone when `top` <= 1). Point i
/// is round(top^(i / (n - 1))), raised to one above its predecessor and lowered to leave room for the
/// points after it. `points` >= 2.
[[nodiscard]] auto concurrency_grid(std::int64_t top, int points) -> std::vector<std::int64_t>;

/// The largest concurrency (1 to kMaxBatch) whose serving ceiling fits the GPU's memory
/// (ServeCeiling::fits), by bisection: about 20 evaluate_serving() calls. Returns 0 when even one request
/// does not fit. `traffic.concurrency` is ignored. Errors: evaluate_serving()'s.
[[nodiscard]] auto max_fitting_concurrency(const GpuDatabase& db, const GpuSpec& gpu, const ModelArch& arch,
                                           const Workload& base, const ServeTraffic& traffic)
    -> core::Result<std::int64_t>;

/// Evaluates concurrency_grid(max_fitting_concurrency(), points) (1 alone, marked not within limits, when
/// one request does not fit). `traffic.concurrency` is ignored. Errors: InvalidArgument for `points` outside
/// kMinSweepPoints to kMaxSweepPoints or a limit outside kMinLatencyLimitS to kMaxLatencyLimitS (NaN is no
/// limit); evaluate_serving()'s.
[[nodiscard]] auto sweep_concurrency(const GpuDatabase& db, const GpuSpec& gpu, const ModelArch& arch,
                                     const Workload& base, const ServeTraffic& traffic,
                                     const CapacityLimits& limits = {}, int points = kDefaultSweepPoints)
    -> core::Result<std::vector<SweepPoint>>;

/// The most output tokens/s among the points of `sweep` within the limits; -1 when none is.
[[nodiscard]] auto most_output_tokens_per_s(std::span<const SweepPoint> sweep) -> double;

/// The index in `sweep` of the point with the most output tokens/s among those within the limits; of the
/// points within kThroughputTieFraction of that figure, the lowest concurrency (`sweep` is in increasing
/// concurrency). Errors: NotFound when no point is within the limits, naming the limits and the tightest
/// figures reached (the lowest TPOT and TTFT of the points that fit), or saying that one request does not
/// fit in memory, with the memory figures.
[[nodiscard]] auto best_point(std::span<const SweepPoint> sweep, const CapacityLimits& limits = {})
    -> core::Result<std::size_t>;

/// sweep_concurrency() then best_point(). Errors: theirs.
[[nodiscard]] auto best_concurrency(const GpuDatabase& db, const GpuSpec& gpu, const ModelArch& arch,
                                    const Workload& base, const ServeTraffic& traffic,
                                    const CapacityLimits& limits = {}, int points = kDefaultSweepPoints)
    -> core::Result<SweepPoint>;

}  // namespace solscope::ceiling
