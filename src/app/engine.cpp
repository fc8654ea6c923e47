#include "app/engine.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "app/messages.hpp"
#include "core/derive.hpp"
#include "core/units.hpp"

namespace solscope::app {
namespace {

using SteadyClock = std::chrono::steady_clock;

/// Sleeps until `deadline` in slices short enough to notice `stop` within ~100 ms (each wake-up costs CPU, so
/// the slice is as long as the stop latency allows).
void sleep_until(SteadyClock::time_point deadline, const std::atomic<bool>& stop) {
  constexpr auto kSlice = std::chrono::milliseconds(100);
  while (!stop.load(std::memory_order_relaxed)) {
    const auto now = SteadyClock::now();
    if (now >= deadline) return;
    std::this_thread::sleep_for(std::min<SteadyClock::duration>(deadline - now, kSlice));
  }
}

}  // namespace

Engine::Engine(sources::CounterSource& source, std::vector<SampleSink*> sinks, std::ostream& warnings)
    : source_(source), sinks_(std::move(sinks)), warnings_(warnings) {}

auto Engine::deliver(std::vector<core::RawSample>& batch, RunSummary& summary) -> core::Result<void> {
  static const core::DeviceInfo kUnknownDevice;
  for (auto& raw : batch) {
    if (annotate_) annotate_(raw);
    auto it = devices_.find(raw.device_index);
    const core::SolSample sol = core::derive(raw, it != devices_.end() ? it->second : kUnknownDevice);
    for (SampleSink* sink : sinks_) {
      if (auto r = sink->on_sample(raw, sol); !r) return r;
    }
    ++summary.samples;
  }
  for (SampleSink* sink : sinks_) {
    if (auto r = sink->flush(); !r) return r;
  }
  return core::ok();
}

void Engine::report_lost_devices(RunSummary& summary) {
  for (const auto& [index, device] : devices_) {
    if (std::find(summary.lost.begin(), summary.lost.end(), index) != summary.lost.end()) continue;
    const sources::DeviceStatus status = source_.status(index);
    if (!status.lost) continue;
    summary.lost.push_back(index);
    print_warning(warnings_, "GPU " + std::to_string(index) + " (" + device.uuid + ") stopped answering" +
                                 (status.reason.empty() ? std::string() : ": " + status.reason) +
                                 "; the other GPUs continue");
  }
}

auto Engine::run(const std::atomic<bool>& stop, const EngineOptions& options) -> core::Result<RunSummary> {
  if (options.poll_interval_ns < core::kNsPerMs) {
    return core::fail(core::ErrorCode::InvalidArgument, "poll interval below 1 ms",
                      "use --interval 1ms or more");
  }
  devices_.clear();
  const auto devices = source_.devices();
  for (const auto& d : devices) devices_[d.index] = d;
  for (SampleSink* sink : sinks_) {
    if (auto r = sink->begin(devices); !r) return tl::unexpected(r.error());
  }
  RunSummary summary;
  const auto started = SteadyClock::now();
  const auto interval = std::chrono::nanoseconds(options.poll_interval_ns);
  const auto end = options.duration_ns ? started + std::chrono::nanoseconds(*options.duration_ns)
                                       : SteadyClock::time_point::max();
  auto next_poll = started;
  while (!stop.load(std::memory_order_relaxed)) {
    if (before_poll_) before_poll_();
    auto batch = source_.poll();
    if (!batch) return tl::unexpected(batch.error());
    ++summary.polls;
    if (auto r = deliver(*batch, summary); !r) return tl::unexpected(r.error());
    report_lost_devices(summary);
    if (source_.finished() || SteadyClock::now() >= end) break;
    if (!options.pace) continue;
    next_poll += interval;
    if (next_poll < SteadyClock::now()) next_poll = SteadyClock::now();  // fell behind: do not burst
    sleep_until(std::min(next_poll, end), stop);
  }
  // Stopped by a signal or the duration: collect what the source completed meanwhile, so nothing is lost.
  if (!source_.finished()) {
    auto last = source_.poll();
    if (!last) return tl::unexpected(last.error());
    if (auto r = deliver(*last, summary); !r) return tl::unexpected(r.error());
  }
  return summary;
}

}  // namespace solscope::app
