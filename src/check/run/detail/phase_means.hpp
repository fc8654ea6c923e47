// The measured side of a check: the mean of one metric over the samples taken while a phase ran, leaving out
// the ramp at each edge (kernels still starting, or draining, inside a sample).
#pragma once

#include <cstdint>
#include <span>

#include "core/metric_id.hpp"
#include "core/raw_sample.hpp"
#include "core/window.hpp"

namespace solscope::app {

/// Left out at each edge of a phase (core::kPhaseRampEdgeNs): a sample counts only when it lies wholly inside
/// [wall_start + kRampEdgeNs, wall_end - kRampEdgeNs].
inline constexpr std::int64_t kRampEdgeNs = core::kPhaseRampEdgeNs;

/// A phase's window on the samples' clock (CLOCK_REALTIME ns, as KernelRunner::RunResult gives it).
struct PhaseWindow {
  std::uint32_t device = 0;
  std::int64_t wall_start_ns = 0;
  std::int64_t wall_end_ns = 0;
};

/// A mean and how many samples made it.
struct PhaseMean {
  double value = core::kUnknown;  ///< NaN when no sample counted
  std::size_t samples = 0;
};

/// Duration-weighted mean of `metric` over the samples of `window.device` that lie wholly inside the window
/// shrunk by `edge_ns` at each end; samples with the metric unknown (NaN) or no duration are left out. A
/// window shorter than two edges holds no sample.
[[nodiscard]] auto phase_mean(std::span<const core::RawSample> samples, const PhaseWindow& window,
                              core::MetricId metric, std::int64_t edge_ns = kRampEdgeNs) -> PhaseMean;

/// True when any sample of `device` has `metric` known: the source measures it.
[[nodiscard]] auto source_measures(std::span<const core::RawSample> samples, std::uint32_t device,
                                   core::MetricId metric) -> bool;

}  // namespace solscope::app
