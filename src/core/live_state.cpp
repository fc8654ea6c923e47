#include "core/live_state.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/units.hpp"

namespace solscope::core {
namespace {

/// Adds pct/100 x seconds to `busy` and seconds to `known` when `pct` is known.
void add_busy(double pct, double seconds, double& busy, double& known) {
  if (std::isnan(pct)) return;
  busy += std::max(pct, 0.0) / kPercent * seconds;
  known += seconds;
}

/// Floor division: the window index of a time (negative times round down too).
auto window_index_of(std::int64_t t_ns, std::int64_t window_ns) -> std::int64_t {
  const std::int64_t q = t_ns / window_ns;
  return (t_ns % window_ns != 0 && t_ns < 0) ? q - 1 : q;
}

auto midpoint_of(const SolSample& s) -> std::int64_t {
  return s.t_start_ns + (s.t_end_ns - s.t_start_ns) / 2;
}

/// `options` with window_ns raised to >= 1 ns.
auto with_valid_window(LiveStateOptions options) -> LiveStateOptions {
  options.window_ns = std::max<std::int64_t>(options.window_ns, 1);
  return options;
}

}  // namespace

void accumulate(BusyCounters& c, const SolSample& s) {
  const double seconds =
      static_cast<double>(std::max<std::int64_t>(s.duration_ns(), 0)) / static_cast<double>(kNsPerS);
  c.sampled_seconds += seconds;
  ++c.samples;
  if ((s.flags & kSampleGapBefore) != 0) ++c.gaps;
  add_busy(s.compute_sol_pct, seconds, c.compute_sol_seconds, c.compute_sol_known_seconds);
  add_busy(s.memory_sol_pct, seconds, c.memory_sol_seconds, c.memory_sol_known_seconds);
  for (std::size_t i = 0; i < kPipeCount; ++i) {
    add_busy(s.pipe_pct[i], seconds, c.pipe_seconds[i], c.pipe_known_seconds[i]);
  }
  for (std::size_t i = 0; i < kMemPathCount; ++i) {
    add_busy(s.path_pct[i], seconds, c.path_seconds[i], c.path_known_seconds[i]);
  }
  add_busy(s.sm_active_pct(), seconds, c.sm_active_seconds, c.sm_active_known_seconds);
  add_busy(s.gpu_util_pct(), seconds, c.gpu_util_seconds, c.gpu_util_known_seconds);
  if (!std::isnan(s.dram_bytes_per_s)) c.dram_bytes += std::max(s.dram_bytes_per_s, 0.0) * seconds;
  const auto bound = static_cast<std::size_t>(s.bound);
  if (bound < c.bound_samples.size()) ++c.bound_samples[bound];
  const auto pause = static_cast<std::size_t>(s.pm_pause);
  if (s.pm_pause != PmPauseReason::kNone && pause < c.pm_paused_seconds.size()) {
    c.pm_paused_seconds[pause] += seconds;
  }
}

auto to_history_point(const SolSample& w) -> HistoryPoint {
  return HistoryPoint{.t_start_ns = w.t_start_ns,
                      .t_end_ns = w.t_end_ns,
                      .compute_sol_pct = w.compute_sol_pct,
                      .memory_sol_pct = w.memory_sol_pct,
                      .gpu_util_pct = w.gpu_util_pct(),
                      .attainable_compute_sol_pct = w.attainable_compute_sol_pct,
                      .attainable_memory_sol_pct = w.attainable_memory_sol_pct};
}

LiveState::LiveState(LiveStateOptions options)
    : options_(with_valid_window(options)),
      max_windows_(
          static_cast<std::size_t>(std::max<std::int64_t>(1, options_.history_ns / options_.window_ns))) {}

void LiveState::set_devices(std::vector<DeviceState> devices) {
  const std::scoped_lock lock(mutex_);
  devices_.clear();
  for (auto& d : devices) {
    const std::uint32_t index = d.info.index;
    Device& device = devices_[index];
    device.state = std::move(d);
    device.workload_parts = WorkloadCounters::parts_of(device.state.workloads);
  }
  newest_ns_ = 0;
  ++version_;
}

void LiveState::clear_samples() {
  const std::scoped_lock lock(mutex_);
  for (auto& [index, d] : devices_) {
    DeviceState kept = std::move(d.state);
    WorkloadCounters::Parts parts = std::move(d.workload_parts);
    d = Device{};
    d.state = std::move(kept);
    d.workload_parts = std::move(parts);
  }
  newest_ns_ = 0;
  ++version_;
}

template <class T>
void LiveState::set_state(std::uint32_t device, T DeviceState::*field, T value) {
  const std::scoped_lock lock(mutex_);
  auto it = devices_.find(device);
  if (it == devices_.end() || it->second.state.*field == value) return;
  it->second.state.*field = std::move(value);
  ++version_;
}

void LiveState::set_processes(std::uint32_t device, std::vector<GpuProcess> processes) {
  set_state(device, &DeviceState::processes, std::move(processes));
}

void LiveState::set_workload_note(std::uint32_t device, std::string note) {
  set_state(device, &DeviceState::workload_note, std::move(note));
}

void LiveState::set_workloads(std::uint32_t device, GpuWorkloads workloads) {
  const std::scoped_lock lock(mutex_);
  auto it = devices_.find(device);
  if (it == devices_.end() || it->second.state.workloads == workloads) return;
  it->second.workload_parts = WorkloadCounters::parts_of(workloads);
  it->second.state.workloads = std::move(workloads);
  ++version_;
}

void LiveState::set_source_note(std::uint32_t device, std::string note) {
  set_state(device, &DeviceState::source_note, std::move(note));
}

void LiveState::set_lost(std::uint32_t device, bool lost) {
  set_state(device, &DeviceState::lost, lost);
}

void LiveState::set_iteration(std::uint32_t device, const IterationEstimate& estimate) {
  const std::scoped_lock lock(mutex_);
  const auto it = devices_.find(device);
  if (it == devices_.end()) return;
  std::optional<IterationEstimate>& held = it->second.iteration_from_elsewhere;
  // The same estimate again (the next read of an unchanged daemon) changes nothing.
  if (held && held->estimated_at_ns == estimate.estimated_at_ns && held->periodic == estimate.periodic &&
      held->note == estimate.note) {
    return;
  }
  held = estimate;
  ++version_;
}

auto LiveState::device_for(std::uint32_t index) -> Device& {
  auto [it, inserted] = devices_.try_emplace(index);
  if (inserted) it->second.state.info.index = index;
  return it->second;
}

void LiveState::close_window(Device& d) {
  if (d.open.empty()) return;
  d.complete.push_back(d.open.result());
  d.newest_closed_number = ++closed_windows_;
  d.open.reset();
  while (d.complete.size() > max_windows_) d.complete.pop_front();
}

void LiveState::add(const SolSample& sample) {
  const std::scoped_lock lock(mutex_);
  Device& d = device_for(sample.device_index);
  const std::int64_t index = window_index_of(midpoint_of(sample), options_.window_ns);
  if (!d.open.empty() && index != d.open_index) {
    // A sample of another window closes the open one; an older sample (out of order) starts afresh.
    close_window(d);
  }
  if (d.open.empty()) d.open_index = index;
  d.open.add(sample);
  d.latest = sample;
  accumulate(d.counters, sample);
  d.workload_counters.add(d.workload_parts, sample.bound,
                          static_cast<double>(sample.duration_ns()) / static_cast<double>(kNsPerS));
  if (!d.iteration_from_elsewhere) d.iteration.add(sample);
  newest_ns_ = std::max(newest_ns_, sample.t_end_ns);
  ++version_;
}

auto LiveState::snapshot_of(const Device& d) -> DeviceSnapshot {
  DeviceSnapshot snap{.state = d.state,
                      .latest = d.latest,
                      .latest_window = std::nullopt,
                      .counters = d.counters,
                      .workload_counters = d.workload_counters,
                      .iteration = d.iteration_from_elsewhere.value_or(d.iteration.estimate())};
  if (!d.complete.empty()) {
    snap.latest_window = d.complete.back();
  } else if (!d.open.empty()) {
    snap.latest_window = d.open.result();
  }
  return snap;
}

auto LiveState::snapshot() const -> std::vector<DeviceSnapshot> {
  const std::scoped_lock lock(mutex_);
  std::vector<DeviceSnapshot> out;
  out.reserve(devices_.size());
  for (const auto& [index, d] : devices_) out.push_back(snapshot_of(d));
  return out;
}

auto LiveState::snapshot(std::uint32_t device) const -> std::optional<DeviceSnapshot> {
  const std::scoped_lock lock(mutex_);
  const auto it = devices_.find(device);
  if (it == devices_.end()) return std::nullopt;
  return snapshot_of(it->second);
}

auto LiveState::devices() const -> std::vector<DeviceState> {
  const std::scoped_lock lock(mutex_);
  std::vector<DeviceState> out;
  out.reserve(devices_.size());
  for (const auto& [index, d] : devices_) out.push_back(d.state);
  return out;
}

auto LiveState::windows(std::uint32_t device, std::int64_t since_ns, std::int64_t merge, bool include_open,
                        std::size_t max_count) const -> std::vector<SolSample> {
  const std::scoped_lock lock(mutex_);
  std::vector<SolSample> out;
  auto it = devices_.find(device);
  if (it == devices_.end()) return out;
  const Device& d = it->second;
  const std::int64_t span_ns = options_.window_ns * std::max<std::int64_t>(merge, 1);
  WindowAccumulator acc;
  std::int64_t acc_index = 0;
  auto take = [&](const SolSample& w) {
    if (w.t_end_ns <= since_ns) return;
    const std::int64_t index = window_index_of(midpoint_of(w), span_ns);
    if (!acc.empty() && index != acc_index) {
      out.push_back(acc.result());
      acc.reset();
    }
    if (acc.empty()) acc_index = index;
    acc.add(w);
  };
  for (const auto& w : d.complete) {
    if (out.size() >= max_count) return out;  // a merged window is complete once the next one starts
    take(w);
  }
  if (include_open && !d.open.empty() && out.size() < max_count) take(d.open.result());
  if (!acc.empty() && out.size() < max_count) out.push_back(acc.result());
  return out;
}

auto LiveState::history(std::uint32_t device, std::int64_t since_ns, std::int64_t merge) const
    -> std::vector<HistoryPoint> {
  std::vector<HistoryPoint> out;
  if (merge <= 1) {
    const std::scoped_lock lock(mutex_);
    auto it = devices_.find(device);
    if (it == devices_.end()) return out;
    for (const auto& w : it->second.complete) {
      if (w.t_end_ns > since_ns) out.push_back(to_history_point(w));
    }
    return out;
  }
  for (const auto& w : windows(device, since_ns, merge)) out.push_back(to_history_point(w));
  return out;
}

auto LiveState::newest_closed_window(std::uint32_t device, std::uint64_t after) const
    -> std::optional<ClosedWindow> {
  const std::scoped_lock lock(mutex_);
  const auto it = devices_.find(device);
  if (it == devices_.end() || it->second.complete.empty() || it->second.newest_closed_number <= after) {
    return std::nullopt;
  }
  return ClosedWindow{.number = it->second.newest_closed_number, .window = it->second.complete.back()};
}

auto LiveState::newest_ns() const -> std::int64_t {
  const std::scoped_lock lock(mutex_);
  return newest_ns_;
}

auto LiveState::version() const -> std::uint64_t {
  const std::scoped_lock lock(mutex_);
  return version_;
}

}  // namespace solscope::core
