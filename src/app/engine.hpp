// Engine: drives one CounterSource, derives SOL figures and fans them out to sinks.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <vector>

#include "core/device_info.hpp"
#include "core/result.hpp"
#include "core/sol_sample.hpp"
#include "sources/counter_source.hpp"

namespace solscope::app {

/// A consumer of derived samples (trace writer, JSON Lines printer, live view).
class SampleSink {
 public:
  virtual ~SampleSink() = default;
  /// Called once before the first sample with the devices being sampled.
  virtual auto begin(const std::vector<core::DeviceInfo>& devices) -> core::Result<void> = 0;
  /// Called for each sample in source order. An error stops the engine.
  virtual auto on_sample(const core::RawSample& raw, const core::SolSample& sol) -> core::Result<void> = 0;
  /// Called after each poll's batch and at the end: commit buffered output.
  virtual auto flush() -> core::Result<void> { return core::ok(); }
};

/// How long and how fast the engine runs.
struct EngineOptions {
  std::int64_t poll_interval_ns = 100'000'000;  ///< time between polls of the source (>= 1 ms)
  std::optional<std::int64_t> duration_ns;      ///< stop after this much wall time; none = until stopped
  bool pace = true;                             ///< sleep between polls; false drains a replay at full speed
};

/// What a run did.
struct RunSummary {
  std::uint64_t samples = 0;        ///< samples delivered to the sinks
  std::uint64_t polls = 0;          ///< polls of the source
  std::vector<std::uint32_t> lost;  ///< devices that stopped answering during the run
};

/// Runs the source until `stop` is set, the duration elapses, or the source finishes (a replay at its end).
/// Not thread-safe; `stop` may be set from a signal handler or another thread. Errors: the first error of the
/// source's poll() or of a sink. A device that is lost mid-run is reported once on `warnings` and the others
/// go on.
class Engine {
 public:
  Engine(sources::CounterSource& source, std::vector<SampleSink*> sinks, std::ostream& warnings);

  [[nodiscard]] auto run(const std::atomic<bool>& stop, const EngineOptions& options)
      -> core::Result<RunSummary>;

  /// Sets a step that completes each raw sample before derive() and the sinks see it (e.g. the attainable SOL
  /// of the workload on that GPU, which traces then keep). It runs on the sampling path: it must be cheap and
  /// must not block.
  void set_annotator(std::function<void(core::RawSample&)> annotate) { annotate_ = std::move(annotate); }

  /// Sets a step run on the engine's thread before every poll (and before the final one): the one place
  /// where another thread's requests may touch the source (BackgroundEngine::post).
  void set_before_poll(std::function<void()> step) { before_poll_ = std::move(step); }

 private:
  auto deliver(std::vector<core::RawSample>& batch, RunSummary& summary) -> core::Result<void>;
  void report_lost_devices(RunSummary& summary);

  sources::CounterSource& source_;
  std::vector<SampleSink*> sinks_;
  std::ostream& warnings_;
  std::map<std::uint32_t, core::DeviceInfo> devices_;
  std::function<void(core::RawSample&)> annotate_;
  std::function<void()> before_poll_;
};

}  // namespace solscope::app
