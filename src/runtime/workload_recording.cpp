#include "runtime/workload_recording.hpp"

#include <chrono>
#include <utility>

namespace solscope::app {

namespace {

/// CLOCK_REALTIME in ns: the clock of a live source's samples.
auto realtime_ns() -> std::int64_t {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

auto recording_refresh_options(trace::Writer& writer, WorkloadRefreshOptions base) -> WorkloadRefreshOptions {
  base.on_change = [&writer](std::uint32_t device, std::int64_t t_ns, const core::GpuWorkloads& workloads) {
    // Before the first sample the sample clock has no time (0): the wall clock, a live source's, stands in.
    const std::int64_t at_ns = t_ns > 0 ? t_ns : realtime_ns();
    (void)writer.add_workloads(device, at_ns, workloads);  // a failure is the sampling thread's to report
  };
  return base;
}

WorkloadRecording::WorkloadRecording(trace::Writer& writer, sources::CounterSource& source,
                                     WorkloadRefreshOptions options)
    : sink_(state_, source), options_(recording_refresh_options(writer, std::move(options))) {
  // Asked before the engine starts: only the engine's thread touches the source while it runs.
  active_ = source.process_lister() != nullptr && writer.set_workload_refresh().has_value();
}

auto WorkloadRecording::companion() -> EngineCompanion {
  if (!active_) return {};
  return [this](BackgroundEngine& engine) -> std::shared_ptr<void> {
    refresher_ = std::make_unique<ProcessRefresher>(engine, state_, nullptr, options_);
    return std::shared_ptr<void>(static_cast<void*>(this), [this](void*) {
      status_ = refresher_->status();
      refresher_.reset();
    });
  };
}

}  // namespace solscope::app
