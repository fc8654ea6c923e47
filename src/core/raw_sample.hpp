// RawSample: the figures one source read for one GPU over one time interval, before any SOL math.
#pragma once

#include <array>
#include <cstdint>
#include <limits>

#include "core/limiter.hpp"
#include "core/metric_id.hpp"
#include "core/pm_yield.hpp"
#include "core/sol_terms.hpp"

namespace solscope::core {

/// Flags on a sample.
enum SampleFlag : std::uint32_t {
  kSampleGapBefore = 1u << 0,  ///< samples were lost just before this one (buffer overflow, device reset)
  kSampleRecovered = 1u << 1,  ///< read from a trace that was cut short or damaged
  /// PM sampling of this device was paused (RawSample::pm_pause says why): the figures come from the next
  /// best source that coexists with profilers (GPM on Hopper and newer, else NVML)
  kSamplePmPaused = 1u << 2,
};

inline constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

/// Values of every catalog metric over [t_start_ns, t_end_ns) for one device.
///
/// Times are nanoseconds since the Unix epoch (CLOCK_REALTIME domain); sources with GPU timestamps keep the
/// GPU's durations and shift them onto this clock. `values` is indexed by MetricId; NaN means "not measured",
/// never 0. Percentages may exceed 100 slightly (counter skew) and are kept raw.
struct RawSample {
  std::uint32_t device_index = 0;
  std::int64_t t_start_ns = 0;
  std::int64_t t_end_ns = 0;
  SourceKind source = SourceKind::None;
  std::uint32_t flags = 0;
  std::array<double, kMetricCount> values = unknown_values();
  /// The ceiling model's attainable Compute and Memory SOL for the workload running then (percent; NaN when
  /// no workload is known). Not a measurement: filled by the app from src/ceiling, kept so traces replay it.
  double attainable_compute_sol_pct = kUnknown;
  double attainable_memory_sol_pct = kUnknown;
  /// The resource that limits that ceiling (core/limiter.hpp); kCount when unknown. Not stored in traces: a
  /// replayed sample has its figures but no limiter.
  Limiter attainable_limiter = Limiter::kCount;
  /// Why PM sampling was paused for this sample (kNone when it was not; then kSamplePmPaused is clear).
  PmPauseReason pm_pause = PmPauseReason::kNone;

  [[nodiscard]] auto value(MetricId id) const -> double { return values[index_of(id)]; }
  void set(MetricId id, double v) { values[index_of(id)] = v; }
  [[nodiscard]] auto duration_ns() const -> std::int64_t { return t_end_ns - t_start_ns; }

  /// An array with every value unknown (NaN).
  static constexpr auto unknown_values() -> std::array<double, kMetricCount> {
    std::array<double, kMetricCount> v{};
    v.fill(kUnknown);
    return v;
  }
};

}  // namespace solscope::core
