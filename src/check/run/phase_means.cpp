#include "check/run/detail/phase_means.hpp"

#include <cmath>

namespace solscope::app {

auto phase_mean(std::span<const core::RawSample> samples, const PhaseWindow& window, core::MetricId metric,
                std::int64_t edge_ns) -> PhaseMean {
  const std::int64_t from = window.wall_start_ns + edge_ns;
  const std::int64_t to = window.wall_end_ns - edge_ns;
  double weighted = 0.0;
  double total_ns = 0.0;
  PhaseMean mean;
  for (const core::RawSample& s : samples) {
    if (s.device_index != window.device || s.t_start_ns < from || s.t_end_ns > to) continue;
    const double v = s.value(metric);
    if (std::isnan(v) || s.t_end_ns <= s.t_start_ns) continue;
    const auto d = static_cast<double>(s.t_end_ns - s.t_start_ns);
    weighted += v * d;
    total_ns += d;
    ++mean.samples;
  }
  if (mean.samples > 0) mean.value = weighted / total_ns;
  return mean;
}

auto source_measures(std::span<const core::RawSample> samples, std::uint32_t device, core::MetricId metric)
    -> bool {
  for (const core::RawSample& s : samples) {
    if (s.device_index == device && !std::isnan(s.value(metric))) return true;
  }
  return false;
}

}  // namespace solscope::app
