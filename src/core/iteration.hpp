// Training iterations found in the samples alone: the period of a GPU's activity, its jitter, how sure the
// estimate is, and how one iteration splits into compute, memory, communication, latency and idle time
// (docs/design/sol-metrics.md section 12). The live view, the web page and /metrics show it; the kernel log's
// exact split is kernel_steps.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/enum_table.hpp"
#include "core/sol_sample.hpp"
#include "core/units.hpp"

namespace solscope::core {

/// What one stretch of an iteration does, judged per sample (docs/design/sol-metrics.md section 12):
/// communication = the interconnect (NVLink or PCIe) is busy while the SMs wait (the sample is not compute-
/// or memory-bound); otherwise the sample's bound class (Unknown, busy without SOL figures, as latency; idle
/// under 5% activity).
enum class IterationPart : std::uint8_t { Compute, Memory, Communication, Latency, Idle, kCount };
inline constexpr std::size_t kIterationPartCount = static_cast<std::size_t>(IterationPart::kCount);
inline constexpr EnumNames<IterationPart, kIterationPartCount> kIterationPartNames(
    {"compute", "memory", "communication", "latency", "idle"}, "unknown");
[[nodiscard]] constexpr auto to_string(IterationPart part) -> std::string_view {
  return kIterationPartNames(part);
}

/// Bins of the one-iteration strip chart (IterationEstimate::strip).
inline constexpr std::size_t kIterationStripBins = 48;

/// The sliding window the period is looked for in, and how often it is estimated again (sample clock).
inline constexpr std::int64_t kIterationWindowNs = 30 * kNsPerS;
inline constexpr std::int64_t kIterationEstimateEveryNs = 2 * kNsPerS;
/// Below this confidence (the normalised autocorrelation at the period, 0-1) there is no period: "not
/// periodic". Never forced.
inline constexpr double kIterationMinConfidence = 0.5;
/// At least this many whole periods must fit in the window (a period is the repeat of something).
inline constexpr double kIterationMinRepeats = 3.0;
/// A tracker keeps at most this many points (the window at 1 ms sampling), whatever the sampling rate.
inline constexpr std::size_t kIterationMaxPoints = 32'768;

/// The /metrics gauges of an estimate (docs/http-api.md "Metrics"), exported only while it is periodic; the
/// fleet view reads them back.
inline constexpr std::string_view kPromIterationSecondsName = "solscope_iteration_seconds";
inline constexpr std::string_view kPromIterationJitterName = "solscope_iteration_jitter_seconds";
inline constexpr std::string_view kPromIterationConfidenceName = "solscope_iteration_confidence_ratio";
inline constexpr std::string_view kPromIterationComputeName = "solscope_iteration_compute_ratio";
inline constexpr std::string_view kPromIterationCommunicationName = "solscope_iteration_communication_ratio";
inline constexpr std::string_view kPromIterationExposedName =
    "solscope_iteration_exposed_communication_ratio";
inline constexpr std::string_view kPromIterationOffsetName =
    "solscope_iteration_communication_offset_seconds";

/// The iteration of one GPU over the sliding window. `periodic` false = "not periodic" (or too little data):
/// every other field but `confidence`, `note`, `window_ns` and `estimated_at_ns` is then NaN/empty.
struct IterationEstimate {
  bool periodic = false;
  double period_s = kUnknown;  ///< seconds per iteration, > 0
  /// Standard deviation of the single iterations' lengths (start to start), seconds, >= 0; NaN when fewer
  /// than two whole iterations were seen (gaps).
  double jitter_s = kUnknown;
  double confidence = kUnknown;      ///< 0-1: the normalised autocorrelation at the period
  std::int64_t window_ns = 0;        ///< the span of samples the estimate used
  std::int64_t estimated_at_ns = 0;  ///< sample clock (epoch ns) of the newest sample used
  /// Share of one iteration per part, 0-1, summing to 1 (index with IterationPart).
  std::array<double, kIterationPartCount> part_ratio = SolSample::nan_array<kIterationPartCount>();
  /// Share of the iteration the SMs work: the compute, memory and latency parts, 0-1. What every view calls
  /// the iteration's "compute" and what a rank's compute time is (core::rank_steps: period x this).
  double compute_ratio = kUnknown;
  double communication_ratio = kUnknown;  ///< share of the iteration the interconnect is busy, 0-1
  /// Share of the iteration the interconnect is busy while the SMs wait (nothing overlaps it), 0-1;
  /// <= communication_ratio.
  double exposed_communication_ratio = kUnknown;
  /// Where the communication starts within the period: (epoch ns of the newest communication start in the
  /// window mod round(period_s in ns)), seconds in [0, period_s). Anchored at the Unix epoch, so two jobs
  /// with the same period compare directly (the shift a Cassini-style scheduler applies, NSDI'24). NaN when
  /// the iteration has no communication or is communicating all the time.
  double communication_offset_s = kUnknown;
  /// The iteration folded into kIterationStripBins bins, starting at the iteration's start (the end of its
  /// longest idle-or-communication stretch): the part that holds most of each bin's time.
  std::array<IterationPart, kIterationStripBins> strip{};
  std::string note;  ///< why not periodic ("too few samples", "no repeat found", ...); empty when periodic
};

/// One sample as the detector keeps it: time, and the few figures it folds (NaN unknown).
struct IterationPoint {
  std::int64_t t_start_ns = 0;
  std::int64_t t_end_ns = 0;
  float activity = 0.0F;      ///< SM active % (else Compute SOL %), 0-100
  float interconnect = 0.0F;  ///< NVLink rx+tx plus PCIe read+write bytes/s, >= 0
  Bound bound = Bound::Unknown;
};

/// The point of a derived sample.
[[nodiscard]] auto iteration_point(const SolSample& sample) -> IterationPoint;

/// Finds the iteration in `points` (one device, oldest first, any sampling interval 1 ms-1 s). Method:
/// docs/design/sol-metrics.md section 12 (autocorrelation of the activity and interconnect series resampled
/// on a uniform grid, first prominent peak, parabolic refinement; jitter from the single iterations'
/// lengths; the parts from the samples folded over the period). Pure; O(n log n) in the points, the
/// autocorrelation on a grid of at most 1,024 bins (a fixed cost: about 0.5 ms a call on one core).
[[nodiscard]] auto estimate_iteration(std::span<const IterationPoint> points) -> IterationEstimate;

/// A device's sliding window of points, estimated again every kIterationEstimateEveryNs of sample time.
/// Not thread-safe (LiveState holds it under its lock). Memory bounded by kIterationWindowNs (and at most
/// kIterationMaxPoints points) plus the points of one estimate period. A sample older than the newest kept
/// (a replay sought back) starts afresh.
class IterationTracker {
 public:
  /// Adds a sample; estimates again when kIterationEstimateEveryNs passed since the last estimate.
  void add(const SolSample& sample);
  void clear();
  [[nodiscard]] auto estimate() const -> const IterationEstimate& { return estimate_; }

 private:
  /// Drops the points before the window that ends at `now_ns`, and beyond kIterationMaxPoints.
  void drop_expired(std::int64_t now_ns);

  std::vector<IterationPoint> points_;  ///< oldest first; trimmed at each estimate
  std::int64_t next_estimate_ns_ = 0;
  IterationEstimate estimate_;
};

}  // namespace solscope::core
