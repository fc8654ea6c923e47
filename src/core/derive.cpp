#include "core/derive.hpp"

#include <cmath>

#include "core/metric_catalog.hpp"
#include "core/units.hpp"

namespace solscope::core {
namespace {

/// Index of the largest non-NaN value, or N when all are NaN. Ties keep the first.
template <std::size_t N>
auto argmax_known(const std::array<double, N>& values) -> std::size_t {
  std::size_t best = N;
  for (std::size_t i = 0; i < N; ++i) {
    if (std::isnan(values[i])) continue;
    if (best == N || values[i] > values[best]) best = i;
  }
  return best;
}

/// Raises `slot` to `v` when `v` is known and larger (or `slot` is unknown).
void raise_to(double& slot, double v) {
  if (std::isnan(v)) return;
  if (std::isnan(slot) || v > slot) slot = v;
}

}  // namespace

auto classify_bound(double compute_sol_pct, double memory_sol_pct, double engine_active_pct) -> Bound {
  const bool compute_known = !std::isnan(compute_sol_pct);
  const bool memory_known = !std::isnan(memory_sol_pct);
  if (!std::isnan(engine_active_pct) && engine_active_pct < kIdleThresholdPct) return Bound::Idle;
  if (!compute_known && !memory_known) return Bound::Unknown;
  const double compute = compute_known ? compute_sol_pct : -1.0;
  const double memory = memory_known ? memory_sol_pct : -1.0;
  if (compute >= kBoundThresholdPct && compute >= memory) return Bound::Compute;
  if (memory >= kBoundThresholdPct) return Bound::Memory;
  if (std::isnan(engine_active_pct)) return Bound::Unknown;
  return Bound::Latency;
}

auto bound_memory_sol_pct(const SolSample& sample) -> double {
  if (sample.compute_pipe != Pipe::Tensor || sample.memory_path != MemPath::L1) return sample.memory_sol_pct;
  // The tensor pipe's operands stream through L1/shared memory (wgmma reads A and B from shared memory, TMA
  // fills it): that traffic is the pipe's feed, so the paths beyond the SM decide whether it waits on memory.
  double beyond = kUnknown;
  for (const MemPath path : {MemPath::Dram, MemPath::L2}) {
    raise_to(beyond, sample.path_pct[static_cast<std::size_t>(path)]);
  }
  return beyond;
}

auto classify_bound(const SolSample& sample) -> Bound {
  const double gr = sample.gr_active_pct();
  return classify_bound(sample.compute_sol_pct, bound_memory_sol_pct(sample),
                        std::isnan(gr) ? sample.gpu_util_pct() : gr);
}

auto derive(const RawSample& raw, const DeviceInfo& device) -> SolSample {
  SolSample out;
  out.device_index = raw.device_index;
  out.t_start_ns = raw.t_start_ns;
  out.t_end_ns = raw.t_end_ns;
  out.source = raw.source;
  out.flags = raw.flags;
  out.pm_pause = raw.pm_pause;
  out.metrics = raw.values;
  out.attainable_compute_sol_pct = raw.attainable_compute_sol_pct;
  out.attainable_memory_sol_pct = raw.attainable_memory_sol_pct;
  out.attainable_limiter = raw.attainable_limiter;

  for (const MetricDef& def : metric_catalog()) {
    const double v = raw.values[index_of(def.id)];
    if (def.role == MetricRole::ComputePipe) raise_to(out.pipe_pct[def.group], v);
    if (def.role == MetricRole::MemoryPath) raise_to(out.path_pct[def.group], v);
  }
  if (const auto p = argmax_known(out.pipe_pct); p < kPipeCount) {
    out.compute_pipe = static_cast<Pipe>(p);
    out.compute_sol_pct = out.pipe_pct[p];
  }
  if (const auto m = argmax_known(out.path_pct); m < kMemPathCount) {
    out.memory_path = static_cast<MemPath>(m);
    out.memory_sol_pct = out.path_pct[m];
  }
  out.dram_bytes_per_s = raw.value(MetricId::DramThroughput) / kPercent * device.dram_peak_bytes_per_s;

  out.bound = classify_bound(out);
  return out;
}

auto clamp_pct(double pct) -> double {
  if (std::isnan(pct)) return pct;
  return pct < 0.0 ? 0.0 : (pct > 100.0 ? 100.0 : pct);
}

}  // namespace solscope::core
