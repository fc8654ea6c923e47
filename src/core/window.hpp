// Duration-weighted aggregation of SolSamples into windows (the figures a view or an exporter shows).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "core/sol_sample.hpp"

namespace solscope::core {

/// Left out at each edge of a phase whose figures are compared with what it must show (`solscope check`'s
/// calibration phases, `solscope report --phases`): 100 ms, 10 samples at 10 ms or one GPM sample, where
/// kernels are still starting or draining inside a sample. A sample counts only when it lies wholly inside
/// [start + kPhaseRampEdgeNs, end - kPhaseRampEdgeNs].
inline constexpr std::int64_t kPhaseRampEdgeNs = 100'000'000;

/// Duration-weighted mean of one figure's known values: the sum of value x weight and the weight they cover
/// (weights are sample durations in ns in every use). NaN values are skipped; value() is NaN (kUnknown) when
/// no value was known.
struct WeightedMean {
  double weighted_sum = 0.0;
  double weight = 0.0;
  void add(double v, double w) {
    if (std::isnan(v)) return;
    weighted_sum += v * w;
    weight += w;
  }
  [[nodiscard]] auto value() const -> double { return weight > 0.0 ? weighted_sum / weight : kUnknown; }
};

/// Accumulates SolSamples of one device into one window. Pure and allocation-free; not thread-safe.
///
/// Every figure of the window is the duration-weighted mean of the samples where it is known (NaN samples are
/// skipped, so a figure missing from part of the window is averaged over the part that has it; with no known
/// sample it is NaN). Compute and Memory SOL are the means of each sample's SOL (each sample's busiest pipe),
/// as
/// docs/design/cupti-pm-sampling.md section 1.5 prescribes; the named pipe and path are those with the
/// highest mean. The bound is classified again from the window's means. Weights are sample durations in ns (a
/// sample of zero or negative duration weighs 1 ns). The window spans the earliest start to the latest end;
/// flags are OR-ed.
class WindowAccumulator {
 public:
  /// Adds one sample. Samples of another device than the first one added are a programmer error and are
  /// ignored.
  void add(const SolSample& sample);
  /// True when no sample has been added since construction or reset().
  [[nodiscard]] auto empty() const -> bool { return count_ == 0; }
  /// Number of samples added.
  [[nodiscard]] auto count() const -> std::size_t { return count_; }
  /// The aggregated window; a default SolSample (all unknown) when empty.
  [[nodiscard]] auto result() const -> SolSample;
  /// Forgets every sample.
  void reset() { *this = WindowAccumulator{}; }

 private:
  std::size_t count_ = 0;
  std::uint32_t device_index_ = 0;  ///< the device of the first sample added
  std::int64_t t_start_ns_ = 0;
  std::int64_t t_end_ns_ = 0;
  std::uint32_t flags_ = 0;
  PmPauseReason pm_pause_ = PmPauseReason::kNone;  ///< that of the latest sample
  SourceKind source_ = SourceKind::None;
  WeightedMean compute_sol_;
  WeightedMean memory_sol_;
  WeightedMean dram_bytes_per_s_;
  WeightedMean attainable_compute_;
  WeightedMean attainable_memory_;
  std::array<double, kLimiterCount> limiter_weight_{};  ///< sample time per attainable limiter, ns
  std::array<WeightedMean, kPipeCount> pipes_{};
  std::array<WeightedMean, kMemPathCount> paths_{};
  std::array<WeightedMean, kMetricCount> metrics_{};
};

/// Aggregates one device's samples into the windows [k*window_ns, (k+1)*window_ns) of the epoch clock, in
/// time order. A sample belongs to the window holding its midpoint. Windows without samples are left out.
/// `window_ns` must be > 0 (otherwise the result is empty). Samples need not be sorted.
[[nodiscard]] auto aggregate_windows(std::span<const SolSample> samples, std::int64_t window_ns)
    -> std::vector<SolSample>;

/// Aggregates all samples into one window (WindowAccumulator over the span).
[[nodiscard]] auto aggregate(std::span<const SolSample> samples) -> SolSample;

}  // namespace solscope::core
