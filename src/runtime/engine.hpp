// Engine: drives one CounterSource, derives SOL figures and fans them out to sinks. Each sink runs on a
// thread of its own behind a bounded queue (SinkWorker), so that a slow sink (a stalled `--json | less`, a
// slow disk) never stalls sampling: a live view loses its oldest unread samples and is told how many; a
// recording never loses one, and sampling waits for it (back-pressure) once its queue is full, saying so.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/bounded_queue.hpp"
#include "core/device_info.hpp"
#include "core/result.hpp"
#include "core/sol_sample.hpp"
#include "sources/counter_source.hpp"

namespace solscope::app {

/// How the engine hands samples to one sink: through a queue of `capacity` samples read by the sink's own
/// thread. A live view drops its oldest unread samples when it falls behind (counted, and reported at the
/// end of the run); a recording never drops one: sampling waits for room (back-pressure), bounded in memory
/// by `capacity`, and the engine says so on its warnings stream.
struct SinkDelivery {
  core::Overflow overflow = core::Overflow::DropOldest;
  std::size_t capacity = 1024;         ///< samples queued at most (about 1 KiB each)
  std::string name = "the live view";  ///< for messages: "<name> fell behind ..."
};

/// A consumer of derived samples (trace writer, JSON Lines printer, live view). begin() runs on the
/// engine's thread; on_sample() and flush() run on the sink's own thread (one at a time, never concurrently).
class SampleSink {
 public:
  virtual ~SampleSink() = default;
  /// Called once before the first sample with the devices being sampled. An error stops the engine before
  /// its first poll.
  virtual auto begin(const std::vector<core::DeviceInfo>& devices) -> core::Result<void> = 0;
  /// Called for each sample in source order (minus those a live view dropped). An error stops the engine.
  virtual auto on_sample(const core::RawSample& raw, const core::SolSample& sol) -> core::Result<void> = 0;
  /// Called whenever the sink has caught up with its queue, and at the end: commit buffered output.
  virtual auto flush() -> core::Result<void> { return core::ok(); }
  /// How the engine delivers to this sink (default: a live view that drops its oldest unread samples).
  [[nodiscard]] virtual auto delivery() const -> SinkDelivery { return {}; }
};

/// How long and how fast the engine runs.
struct EngineOptions {
  std::int64_t poll_interval_ns = 100'000'000;  ///< time between polls of the source (>= 1 ms)
  std::optional<std::int64_t> duration_ns;      ///< stop after this much wall time; none = until stopped
  /// Sleep between polls; false drains a replay at full speed, and then every sink waits (a sink that
  /// falls behind slows the replay down instead of losing samples: nothing is real-time there).
  bool pace = true;
};

/// What a run did.
struct RunSummary {
  std::uint64_t samples = 0;        ///< samples delivered to the sinks
  std::uint64_t polls = 0;          ///< polls of the source
  std::vector<std::uint32_t> lost;  ///< devices that stopped answering during the run
  std::uint64_t dropped = 0;        ///< samples live views skipped because they fell behind (all sinks)
  std::uint64_t waits = 0;          ///< times sampling waited for a sink that never drops (a recording)
};

/// Runs the source until `stop` (or the flag of set_external_stop()) is set, the duration elapses, or the
/// source finishes (a replay at its end). A set flag is seen within 100 ms, at once after wake(). Not
/// thread-safe (except wake()); the flags may be set from a signal handler or another thread. Errors: the
/// first error of the source's poll() or of a sink (a sink that throws fails with Internal "<name> stopped:
/// <what>"). A device that is lost mid-run is reported once on `warnings` and the others go on. When run()
/// returns, every sink has received and flushed every sample it was given. On `warnings`: a sink that dropped
/// samples ("the live view fell behind: it skipped N of M samples"), and a recording that made sampling wait
/// (once when it starts, and the count at the end).
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

  /// Sets a second flag that stops run() as `stop` does (e.g. the one a SIGINT/SIGTERM handler sets); it must
  /// outlive run(). Before run() only.
  void set_external_stop(const std::atomic<bool>& flag) { external_stop_ = &flag; }

  /// Wakes run() from its sleep between two polls, so that a stop flag set just before is seen at once
  /// instead of within 100 ms. Thread-safe; not async-signal-safe (a signal handler only sets its flag).
  void wake();

  /// Waits at most `bound_ms` milliseconds until every sink has taken every sample offered so far (a live
  /// view that stays behind gives up waiting after the bound). Only from the engine's thread during run(), in
  /// a before-poll step: then a step such as a replay seek follows every earlier sample in every sink.
  void catch_up_sinks(std::int64_t bound_ms);

 private:
  class Workers;
  auto deliver(std::vector<core::RawSample>& batch, Workers& workers, RunSummary& summary)
      -> core::Result<void>;
  auto poll_until_done(const std::atomic<bool>& stop, const EngineOptions& options, Workers& workers,
                       RunSummary& summary) -> core::Result<void>;
  void report_lost_devices(RunSummary& summary);
  [[nodiscard]] auto stop_requested(const std::atomic<bool>& stop) const -> bool;
  void sleep_until(std::chrono::steady_clock::time_point deadline, const std::atomic<bool>& stop);

  sources::CounterSource& source_;
  std::vector<SampleSink*> sinks_;
  std::ostream& warnings_;
  std::map<std::uint32_t, core::DeviceInfo> devices_;
  std::function<void(core::RawSample&)> annotate_;
  std::function<void()> before_poll_;
  Workers* workers_ = nullptr;  ///< the running workers, during run()
  const std::atomic<bool>* external_stop_ = nullptr;
  std::mutex sleep_mutex_;  ///< pairs with woken_ so that wake() is never lost
  std::condition_variable woken_;
};

}  // namespace solscope::app
