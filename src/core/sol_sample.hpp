// SolSample: how close one GPU was to its speed of light over one interval (or an aggregated window).
#pragma once

#include <array>
#include <cstdint>

#include "core/limiter.hpp"
#include "core/raw_sample.hpp"
#include "core/sol_terms.hpp"

namespace solscope::core {

/// SOL figures of one device over [t_start_ns, t_end_ns), produced by derive() or aggregated by a window.
///
/// All percentages are 0-100 of the unit's peak sustained rate (values slightly over 100 are kept raw; clamp
/// only for display). NaN means unknown. `metrics` keeps every catalog value (SM active, occupancy, GR
/// active, classic utilization, clocks, power, ...) so that nothing the source read is lost.
struct SolSample {
  std::uint32_t device_index = 0;
  std::int64_t t_start_ns = 0;
  std::int64_t t_end_ns = 0;
  SourceKind source = SourceKind::None;
  std::uint32_t flags = 0;  ///< SampleFlag bits, OR-ed over an aggregated window

  double compute_sol_pct = kUnknown;      ///< busiest compute pipe
  Pipe compute_pipe = Pipe::kCount;       ///< the pipe that set compute_sol_pct; kCount when unknown
  double memory_sol_pct = kUnknown;       ///< busiest memory path
  MemPath memory_path = MemPath::kCount;  ///< the path that set memory_sol_pct; kCount when unknown
  std::array<double, kPipeCount> pipe_pct = nan_array<kPipeCount>();
  std::array<double, kMemPathCount> path_pct = nan_array<kMemPathCount>();
  double dram_bytes_per_s = kUnknown;  ///< dram_pct x DeviceInfo::dram_peak_bytes_per_s
  Bound bound = Bound::Unknown;
  double attainable_compute_sol_pct = kUnknown;  ///< from the ceiling model, when a workload is known
  double attainable_memory_sol_pct = kUnknown;
  /// What limits the attainable figures (RawSample::attainable_limiter); in a window, the limiter that held
  /// for the most sample time. kCount when unknown.
  Limiter attainable_limiter = Limiter::kCount;
  /// Why PM sampling was paused (RawSample::pm_pause); in a window, that of its latest sample.
  PmPauseReason pm_pause = PmPauseReason::kNone;
  std::array<double, kMetricCount> metrics = RawSample::unknown_values();

  [[nodiscard]] auto metric(MetricId id) const -> double { return metrics[index_of(id)]; }
  [[nodiscard]] auto sm_active_pct() const -> double { return metric(MetricId::SmActive); }
  [[nodiscard]] auto sm_occupancy_pct() const -> double { return metric(MetricId::SmOccupancy); }
  [[nodiscard]] auto gr_active_pct() const -> double { return metric(MetricId::GrActive); }
  /// The classic utilization of nvidia-smi and nvtop.
  [[nodiscard]] auto gpu_util_pct() const -> double { return metric(MetricId::GpuUtil); }
  [[nodiscard]] auto duration_ns() const -> std::int64_t { return t_end_ns - t_start_ns; }

  template <std::size_t N>
  static constexpr auto nan_array() -> std::array<double, N> {
    std::array<double, N> v{};
    v.fill(kUnknown);
    return v;
  }
};

}  // namespace solscope::core
