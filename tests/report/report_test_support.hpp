// Hand-built SOL samples for the report tests.
#pragma once

#include <cstdint>

#include "core/metric_id.hpp"
#include "core/sol_sample.hpp"
#include "core/units.hpp"

namespace solscope::report::testing {

inline constexpr std::int64_t kMs = core::kNsPerMs;

/// What a hand-built sample holds; NaN = unknown.
struct Load {
  core::Bound bound = core::Bound::Idle;
  double compute = 0.0;
  core::Pipe pipe = core::Pipe::Tensor;
  double memory = 0.0;
  core::MemPath path = core::MemPath::Dram;
  double util = 0.0;
  double sm_active = 0.0;
  double power_w = 100.0;
};

/// A sample of `device` over [start_ms, start_ms + length_ms) with `load`: the named pipe and path hold the
/// SOL figures, other pipes and paths stay unknown.
inline auto sample(std::uint32_t device, std::int64_t start_ms, std::int64_t length_ms, const Load& load)
    -> core::SolSample {
  core::SolSample s;
  s.device_index = device;
  s.t_start_ns = start_ms * kMs;
  s.t_end_ns = (start_ms + length_ms) * kMs;
  s.source = core::SourceKind::Replay;
  s.bound = load.bound;
  s.compute_sol_pct = load.compute;
  s.compute_pipe = load.pipe;
  s.pipe_pct[static_cast<std::size_t>(load.pipe)] = load.compute;
  s.memory_sol_pct = load.memory;
  s.memory_path = load.path;
  s.path_pct[static_cast<std::size_t>(load.path)] = load.memory;
  s.metrics[core::index_of(core::MetricId::GpuUtil)] = load.util;
  s.metrics[core::index_of(core::MetricId::SmActive)] = load.sm_active;
  s.metrics[core::index_of(core::MetricId::PowerW)] = load.power_w;
  return s;
}

}  // namespace solscope::report::testing
