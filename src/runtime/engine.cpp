#include "runtime/engine.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include "core/derive.hpp"
#include "core/device_info.hpp"
#include "core/units.hpp"
#include "runtime/detail/sink_worker.hpp"
#include "runtime/messages.hpp"

namespace solscope::app {
namespace {

using SteadyClock = std::chrono::steady_clock;

}  // namespace

/// The run's sink workers: one per sink, started after begin(), finished (drained and joined) on every way
/// out of run().
class Engine::Workers {
 public:
  Workers(const std::vector<SampleSink*>& sinks, bool paced) : paced_(paced) {
    for (SampleSink* sink : sinks) {
      SinkDelivery delivery = sink->delivery();
      if (!paced) delivery.overflow = core::Overflow::Wait;  // a drained replay loses nothing by waiting
      workers_.push_back(std::make_unique<SinkWorker>(*sink, std::move(delivery)));
    }
    warned_.assign(workers_.size(), false);
  }

  /// Offers one sample to every sink. Says once per sink when sampling starts to wait for it. Errors: the
  /// error of a sink that failed.
  auto offer(const core::RawSample& raw, const core::SolSample& sol, std::ostream& warnings)
      -> core::Result<void> {
    for (std::size_t i = 0; i < workers_.size(); ++i) {
      SinkWorker& w = *workers_[i];
      const core::PushResult pushed = w.offer(raw, sol);
      if (pushed == core::PushResult::Closed) return first_error();
      // An unpaced replay (--speed 0) is flow-controlled by its sinks on purpose: its waits are no news.
      if (pushed == core::PushResult::QueuedAfterWait && paced_ && !warned_[i]) {
        warned_[i] = true;
        print_warning(warnings,
                      w.delivery().name + " falls behind sampling: sampling waits for it (its queue of " +
                          std::to_string(w.delivery().capacity) + " samples is full); no sample is dropped");
      }
    }
    return core::ok();
  }

  /// Waits until every worker caught up, at most `bound` in all.
  void catch_up(std::chrono::milliseconds bound) {
    const auto until = SteadyClock::now() + bound;
    for (const auto& w : workers_) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - SteadyClock::now());
      if (left.count() <= 0 || !w->wait_caught_up(left)) return;
    }
  }

  /// The first error of a sink so far (ok while none failed).
  auto first_error() const -> core::Result<void> {
    for (const auto& w : workers_) {
      if (auto e = w->error()) return core::fail(std::move(*e));
    }
    return core::ok();
  }

  /// Drains and joins every worker, adds its drops and waits to `summary` and reports them. Returns the
  /// first sink error.
  auto finish(RunSummary& summary, std::ostream& warnings) -> core::Result<void> {
    core::Result<void> first = core::ok();
    for (const auto& w : workers_) {
      auto done = w->finish();
      if (!done && first) first = std::move(done);
      const core::QueueCounters c = w->counters();
      summary.dropped += c.dropped;
      summary.waits += c.waits;
      const std::string& name = w->delivery().name;
      if (c.dropped > 0) {
        print_warning(warnings, name + " fell behind: it skipped " + std::to_string(c.dropped) + " of " +
                                    std::to_string(c.pushed) + " samples (the oldest unread ones)");
      }
      if (c.waits > 0 && paced_) {
        print_warning(warnings, "sampling waited " + std::to_string(c.waits) + " time(s) for " + name +
                                    "; every sample was kept");
      }
    }
    return first;
  }

 private:
  std::vector<std::unique_ptr<SinkWorker>> workers_;
  std::vector<bool> warned_;
  bool paced_ = true;  ///< samples come at the source's pace (live, or a replay at a set speed)
};

Engine::Engine(sources::CounterSource& source, std::vector<SampleSink*> sinks, std::ostream& warnings)
    : source_(source), sinks_(std::move(sinks)), warnings_(warnings) {}

auto Engine::deliver(std::vector<core::RawSample>& batch, Workers& workers, RunSummary& summary)
    -> core::Result<void> {
  static const core::DeviceInfo kUnknownDevice;
  for (auto& raw : batch) {
    if (annotate_) annotate_(raw);
    auto it = devices_.find(raw.device_index);
    const core::SolSample sol = core::derive(raw, it != devices_.end() ? it->second : kUnknownDevice);
    if (auto r = workers.offer(raw, sol, warnings_); !r) return r;
    ++summary.samples;
  }
  return workers.first_error();
}

void Engine::catch_up_sinks(std::int64_t bound_ms) {
  if (workers_ != nullptr) workers_->catch_up(std::chrono::milliseconds(bound_ms));
}

auto Engine::stop_requested(const std::atomic<bool>& stop) const -> bool {
  return stop.load(std::memory_order_relaxed) ||
         (external_stop_ != nullptr && external_stop_->load(std::memory_order_relaxed));
}

/// Sleeps until `deadline`, or until a stop flag is set: at once after wake(), else within a slice of 100 ms
/// (a flag set by a signal handler wakes nobody; each look costs CPU, so the slice is as long as the stop
/// latency allows).
void Engine::sleep_until(SteadyClock::time_point deadline, const std::atomic<bool>& stop) {
  constexpr auto kSlice = std::chrono::milliseconds(100);
  std::unique_lock lock(sleep_mutex_);
  while (!stop_requested(stop)) {
    const auto now = SteadyClock::now();
    if (now >= deadline) return;
    woken_.wait_for(lock, std::min<SteadyClock::duration>(deadline - now, kSlice),
                    [&] { return stop_requested(stop); });
  }
}

void Engine::wake() {
  { const std::scoped_lock lock(sleep_mutex_); }  // a sleeper is either before its check or waiting
  woken_.notify_all();
}

void Engine::report_lost_devices(RunSummary& summary) {
  for (const auto& [index, device] : devices_) {
    if (std::find(summary.lost.begin(), summary.lost.end(), index) != summary.lost.end()) continue;
    const sources::DeviceStatus status = source_.status(index);
    if (!status.lost) continue;
    summary.lost.push_back(index);
    print_warning(warnings_, core::device_label(device) + " (" + device.uuid + ") stopped answering" +
                                 (status.reason.empty() ? std::string() : ": " + status.reason) +
                                 "; the other GPUs continue");
  }
}

auto Engine::run(const std::atomic<bool>& stop, const EngineOptions& options) -> core::Result<RunSummary> {
  if (options.poll_interval_ns < core::kMinSampleIntervalNs) {
    return core::fail(core::ErrorCode::InvalidArgument, "poll interval below 1 ms",
                      "use --interval 1ms or more");
  }
  devices_.clear();
  const auto devices = source_.devices();
  for (const auto& d : devices) devices_[d.index] = d;
  for (SampleSink* sink : sinks_) {
    if (auto r = sink->begin(devices); !r) return core::propagate(r);
  }
  RunSummary summary;
  Workers workers(sinks_, options.pace);
  struct Running {  // workers_ points at `workers` exactly while poll_until_done runs, even if it throws
    Workers*& slot;
    ~Running() { slot = nullptr; }
  } running{workers_ = &workers};
  auto polled = poll_until_done(stop, options, workers, summary);
  auto finished = workers.finish(summary, warnings_);
  if (!polled) return core::propagate(std::move(polled));
  if (!finished) return core::propagate(std::move(finished));
  return summary;
}

auto Engine::poll_until_done(const std::atomic<bool>& stop, const EngineOptions& options, Workers& workers,
                             RunSummary& summary) -> core::Result<void> {
  const auto started = SteadyClock::now();
  const auto interval = std::chrono::nanoseconds(options.poll_interval_ns);
  const auto end = options.duration_ns ? started + std::chrono::nanoseconds(*options.duration_ns)
                                       : SteadyClock::time_point::max();
  auto next_poll = started;
  while (!stop_requested(stop)) {
    if (before_poll_) before_poll_();
    auto batch = source_.poll();
    if (!batch) return core::propagate(batch);
    ++summary.polls;
    if (auto r = deliver(*batch, workers, summary); !r) return r;
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
    if (!last) return core::propagate(last);
    return deliver(*last, workers, summary);
  }
  return core::ok();
}

}  // namespace solscope::app
