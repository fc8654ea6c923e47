// A GPU's samples at a bounded resolution: what phase detection and the HTML report's chart need of every
// sample, kept in at most kMaxSampleBins bins per GPU whatever the trace's length. Pure.
//
// Rule (docs/report.md, "Cost"): a GPU's first kMaxSampleBins samples are one bin each, so a trace of up to
// that many samples per GPU (82 s at 10 ms) is reported exactly. When the bins fill up, each pair of
// neighbours merges into one, and from then on every bin holds twice as many consecutive samples: a GPU keeps
// between kMaxSampleBins / 2 and kMaxSampleBins bins of 2^k samples each (the last one may hold fewer). A bin
// keeps the sums that the duration-weighted means, the time per bound class and the pipe and path names are
// computed from, so merging loses only where inside the bin a phase boundary or a chart bucket edge falls.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/sol_terms.hpp"
#include "core/window.hpp"
#include "report/report.hpp"

namespace solscope::report {

/// Bins kept per GPU at most: 8,192 bins of about 250 bytes, about 2 MB per GPU.
inline constexpr std::size_t kMaxSampleBins = 8192;

/// One sample as the bins take it. Figures are single precision (NaN = unknown).
struct PhasePoint {
  std::int64_t t_start_ns = 0;
  std::int64_t t_end_ns = 0;
  float compute_sol_pct = 0.0F;
  float memory_sol_pct = 0.0F;
  float gpu_util_pct = 0.0F;
  float sm_active_pct = 0.0F;
  float power_w = 0.0F;
  core::Pipe compute_pipe = core::Pipe::kCount;
  core::MemPath memory_path = core::MemPath::kCount;
  core::Bound bound = core::Bound::Unknown;
};

/// A point's weight in the duration-weighted means, ns: its duration, at least 1 ns (as in
/// core::WindowAccumulator).
[[nodiscard]] inline auto weight_ns(const PhasePoint& p) -> std::int64_t {
  return std::max<std::int64_t>(p.t_end_ns - p.t_start_ns, 1);
}

/// The class holding most of `times`; `keep` when it ties with the maximum, else the first in kBoundOrder.
[[nodiscard]] auto dominant_bound(const BoundTimes& times, core::Bound keep) -> core::Bound;

/// Consecutive samples of one GPU, summed. Means weigh each sample by weight_ns(); the time per class sums
/// max(duration, 0).
struct SampleBin {
  std::int64_t t_start_ns = 0;  ///< its first sample's t_start_ns
  std::int64_t t_end_ns = 0;    ///< its last sample's t_end_ns
  std::int64_t max_end_ns = 0;  ///< the latest t_end_ns of its samples
  std::uint64_t samples = 0;
  core::Bound bound = core::Bound::Unknown;        ///< the sample's class; of a merged bin, dominant_bound()
  BoundTimes bound_ns{};                           ///< sampled time per class (kBoundOrder)
  core::WeightedMean compute;                      ///< Compute SOL, %
  core::WeightedMean memory;                       ///< Memory SOL, %
  core::WeightedMean util;                         ///< GPU utilization, %
  core::WeightedMean sm_active;                    ///< SM active, %
  core::WeightedMean power;                        ///< W (weighted_sum / 1e9 = energy in J)
  std::array<double, core::kPipeCount> pipe_ns{};  ///< weight of the samples whose Compute SOL it set
  std::array<double, core::kMemPathCount> path_ns{};  ///< weight of the samples whose Memory SOL it set

  /// The bin of one sample.
  [[nodiscard]] static auto of(const PhasePoint& p) -> SampleBin;
  /// Adds `later` (the samples right after this bin's) to this bin.
  void merge(const SampleBin& later);
  /// Sum of bound_ns: the bin's sampled time, ns.
  [[nodiscard]] auto sampled_ns() const -> std::int64_t;
};

/// One bin per point (the exact resolution), for callers and tests that hold every sample.
[[nodiscard]] auto bins_of(std::span<const PhasePoint> points) -> std::vector<SampleBin>;

/// The bins of one GPU, filled in time order (see the rule at the top). Memory: at most `max_bins` bins.
class SampleBins {
 public:
  /// `max_bins`: at least 2 (smaller values are raised to 2).
  explicit SampleBins(std::size_t max_bins = kMaxSampleBins);

  /// Adds the next sample of the GPU.
  void add(const PhasePoint& point);
  /// The bins, in time order.
  [[nodiscard]] auto bins() const -> std::span<const SampleBin> { return bins_; }
  /// Samples per full bin now: 1, 2, 4, ...
  [[nodiscard]] auto samples_per_bin() const -> std::uint64_t { return per_bin_; }
  /// Frees the bins.
  void clear();

 private:
  void halve();

  std::vector<SampleBin> bins_;
  std::size_t max_bins_;
  std::uint64_t per_bin_ = 1;
};

}  // namespace solscope::report
