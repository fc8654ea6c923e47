#include "core/window.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/derive.hpp"

namespace solscope::core {
namespace {

template <std::size_t N, class Means>
auto argmax_mean(const Means& means) -> std::size_t {
  std::size_t best = N;
  double best_value = 0.0;
  for (std::size_t i = 0; i < N; ++i) {
    const double v = means[i].value();
    if (std::isnan(v)) continue;
    if (best == N || v > best_value) {
      best = i;
      best_value = v;
    }
  }
  return best;
}

/// The limiter with the most sample time; kCount when no sample had one (ties: the first in enum order).
auto most_weight(const std::array<double, kLimiterCount>& weight) -> Limiter {
  std::size_t best = kLimiterCount;
  for (std::size_t i = 0; i < kLimiterCount; ++i) {
    if (weight[i] > 0 && (best == kLimiterCount || weight[i] > weight[best])) best = i;
  }
  return static_cast<Limiter>(best);
}

auto window_of(const SolSample& s, std::int64_t window_ns) -> std::int64_t {
  const std::int64_t mid = s.t_start_ns + (s.t_end_ns - s.t_start_ns) / 2;
  // Floor division, so that windows before the epoch (negative times in tests) stay aligned.
  return mid >= 0 ? mid / window_ns : -((-mid + window_ns - 1) / window_ns);
}

}  // namespace

void WindowAccumulator::add(const SolSample& sample) {
  if (count_ == 0) {
    device_index_ = sample.device_index;
    t_start_ns_ = sample.t_start_ns;
    t_end_ns_ = sample.t_end_ns;
  } else if (sample.device_index != device_index_) {
    return;
  }
  ++count_;
  t_start_ns_ = std::min(t_start_ns_, sample.t_start_ns);
  t_end_ns_ = std::max(t_end_ns_, sample.t_end_ns);
  flags_ |= sample.flags;
  source_ = sample.source;
  pm_pause_ = sample.pm_pause;
  const double w = static_cast<double>(std::max<std::int64_t>(sample.duration_ns(), 1));
  compute_sol_.add(sample.compute_sol_pct, w);
  memory_sol_.add(sample.memory_sol_pct, w);
  dram_bytes_per_s_.add(sample.dram_bytes_per_s, w);
  attainable_compute_.add(sample.attainable_compute_sol_pct, w);
  attainable_memory_.add(sample.attainable_memory_sol_pct, w);
  if (sample.attainable_limiter < Limiter::kCount)
    limiter_weight_[static_cast<std::size_t>(sample.attainable_limiter)] += w;
  for (std::size_t i = 0; i < kPipeCount; ++i) pipes_[i].add(sample.pipe_pct[i], w);
  for (std::size_t i = 0; i < kMemPathCount; ++i) paths_[i].add(sample.path_pct[i], w);
  for (std::size_t i = 0; i < kMetricCount; ++i) metrics_[i].add(sample.metrics[i], w);
}

auto WindowAccumulator::result() const -> SolSample {
  SolSample out;
  if (count_ == 0) return out;
  out.device_index = device_index_;
  out.t_start_ns = t_start_ns_;
  out.t_end_ns = t_end_ns_;
  out.source = source_;
  out.flags = flags_;
  out.pm_pause = pm_pause_;
  out.compute_sol_pct = compute_sol_.value();
  out.memory_sol_pct = memory_sol_.value();
  out.dram_bytes_per_s = dram_bytes_per_s_.value();
  out.attainable_compute_sol_pct = attainable_compute_.value();
  out.attainable_memory_sol_pct = attainable_memory_.value();
  out.attainable_limiter = most_weight(limiter_weight_);
  for (std::size_t i = 0; i < kPipeCount; ++i) out.pipe_pct[i] = pipes_[i].value();
  for (std::size_t i = 0; i < kMemPathCount; ++i) out.path_pct[i] = paths_[i].value();
  for (std::size_t i = 0; i < kMetricCount; ++i) out.metrics[i] = metrics_[i].value();
  if (!std::isnan(out.compute_sol_pct)) out.compute_pipe = static_cast<Pipe>(argmax_mean<kPipeCount>(pipes_));
  if (!std::isnan(out.memory_sol_pct))
    out.memory_path = static_cast<MemPath>(argmax_mean<kMemPathCount>(paths_));
  out.bound = classify_bound(out);
  return out;
}

auto aggregate(std::span<const SolSample> samples) -> SolSample {
  WindowAccumulator acc;
  for (const auto& s : samples) acc.add(s);
  return acc.result();
}

auto aggregate_windows(std::span<const SolSample> samples, std::int64_t window_ns) -> std::vector<SolSample> {
  std::vector<SolSample> out;
  if (window_ns <= 0) return out;
  std::map<std::int64_t, WindowAccumulator> windows;
  for (const auto& s : samples) windows[window_of(s, window_ns)].add(s);
  out.reserve(windows.size());
  for (const auto& [k, acc] : windows) out.push_back(acc.result());
  return out;
}

}  // namespace solscope::core
