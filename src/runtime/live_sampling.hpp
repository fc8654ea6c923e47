// LiveSampling: what `solscope serve` runs while it serves, in one piece that a test can start with its own
// source and /proc: the background engine feeding a LiveState (and a listener such as the HTTP stream), the
// PM yield (profiler watch and yield step) and the process refresh.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/live_state.hpp"
#include "runtime/engine.hpp"
#include "runtime/live_feed.hpp"
#include "runtime/pm_yield_driver.hpp"
#include "runtime/process_refresh.hpp"

namespace solscope::app {

/// What LiveSampling runs beside the engine.
struct LiveSamplingOptions {
  EngineOptions engine;                             ///< poll interval and pacing
  std::function<void(core::RawSample&)> annotate;   ///< the attainable SOL's annotator; none when empty
  LiveStateSink::Listener publish;                  ///< every sample, on the sink's thread; none when empty
  std::function<std::string(std::uint32_t)> notes;  ///< workload note of a device; none when empty
  PmYieldSetup pm_yield;  ///< yield the counters to profilers (none without a board)
  /// The process and workload refresh (ProcessRefresher): its period, the kubelet, job mapping and environ.
  WorkloadRefreshOptions refresh;
};

/// Starts at once: a BackgroundEngine over `source` with a LiveStateSink on `state` (and `publish`), the PM
/// yield of `options.pm_yield`, and a ProcessRefresher. Runs until stop() (or destruction), a set
/// `external_stop`, or the source's end. `source`, `state` and `external_stop` must outlive it.
class LiveSampling {
 public:
  LiveSampling(sources::CounterSource& source, core::LiveState& state, const std::atomic<bool>& external_stop,
               LiveSamplingOptions options);
  ~LiveSampling();  ///< stops the refresher, then the engine
  LiveSampling(const LiveSampling&) = delete;
  auto operator=(const LiveSampling&) -> LiveSampling& = delete;

  [[nodiscard]] auto engine() -> BackgroundEngine& { return *engine_; }
  [[nodiscard]] auto engine() const -> const BackgroundEngine& { return *engine_; }
  /// Stops the refresher and the engine (its last poll reaches every sink); idempotent.
  void stop();

 private:
  LiveStateSink sink_;
  std::unique_ptr<BackgroundEngine> engine_;
  std::unique_ptr<ProcessRefresher> refresher_;
};

}  // namespace solscope::app
