// Capacity planning over the serving ceiling (docs/design/ceiling-model.md section 6.6): how many requests in
// flight one TP group holds before throughput stops growing, within memory and latency limits.
//
// sweep_concurrency() evaluates evaluate_serving() on a geometric grid of concurrencies from 1 to the largest
// that fits in memory (found by bisection on ServeCeiling::fits, which grows monotonically with concurrency);
// best_concurrency() picks the grid point with the most output tokens/s among those within the limits.
//
// Example:
//   ServeTraffic t{.input_tokens = 1024, .output_tokens = 256};
//   auto best = best_concurrency(db, *gpu, arch, Workload{}, t, CapacityLimits{.max_tpot_s = 0.05});
//   // best->concurrency, best->ceiling.output_tokens_per_s
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "ceiling/serving.hpp"

namespace solscope::ceiling {

/// Default number of points of a concurrency sweep (geometric from 1 to the memory limit).
inline constexpr int kDefaultSweepPoints = 30;
/// Largest number of sweep points accepted.
inline constexpr int kMaxSweepPoints = 1000;

/// Latency limits a chosen concurrency must keep; NaN = no limit. Seconds, > 0.
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

/// The largest concurrency (1 to kMaxBatch) whose serving ceiling fits the GPU's memory
/// (ServeCeiling::fits), by bisection: about 20 evaluate_serving() calls. Returns 0 when even one request
/// does not fit. `traffic.concurrency` is ignored. Errors: evaluate_serving()'s.
[[nodiscard]] auto max_fitting_concurrency(const GpuDatabase& db, const GpuSpec& gpu, const ModelArch& arch,
                                           const Workload& base, const ServeTraffic& traffic)
    -> core::Result<std::int64_t>;

/// Evaluates `points` concurrencies (2 to kMaxSweepPoints), geometric from 1 to max_fitting_concurrency()
/// (rounded, duplicates dropped, both ends included; 1 alone when one request does not fit, marked not
/// within limits). Errors: InvalidArgument for `points` out of range or a limit that is not > 0 (NaN is no
/// limit); evaluate_serving()'s.
[[nodiscard]] auto sweep_concurrency(const GpuDatabase& db, const GpuSpec& gpu, const ModelArch& arch,
                                     const Workload& base, const ServeTraffic& traffic,
                                     const CapacityLimits& limits = {}, int points = kDefaultSweepPoints)
    -> core::Result<std::vector<SweepPoint>>;

/// The sweep point with the most output tokens/s among those within the limits; of points within 0.5% of
/// that figure the lowest concurrency wins (same throughput, less latency). Errors: NotFound (with the
/// tightest figures reached) when no point is within the limits; sweep_concurrency()'s.
[[nodiscard]] auto best_concurrency(const GpuDatabase& db, const GpuSpec& gpu, const ModelArch& arch,
                                    const Workload& base, const ServeTraffic& traffic,
                                    const CapacityLimits& limits = {}, int points = kDefaultSweepPoints)
    -> core::Result<SweepPoint>;

}  // namespace solscope::ceiling
