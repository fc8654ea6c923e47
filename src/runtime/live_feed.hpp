// LiveFeed: runs the engine on a background thread and keeps a core::LiveState up to date for viewers (the
// terminal view, the HTTP server): samples, device sources and their reasons, processes, workload notes.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/guarded_run.hpp"
#include "core/live_state.hpp"
#include "runtime/engine.hpp"
#include "runtime/pm_yield_driver.hpp"
#include "runtime/source_factory.hpp"

namespace solscope::app {

/// Feeds a LiveState from the engine: begin() sets the device list (with each device's source and the
/// reason/fix from CounterSource::status), on_sample() adds each sample. Also forwards every sample to
/// `listener` when set (e.g. the server's stream), on the sink's thread (SinkWorker): a slow listener makes
/// the view skip its oldest unread samples (counted), never sampling wait.
class LiveStateSink : public SampleSink {
 public:
  using Listener = std::function<void(const core::SolSample& sample)>;
  LiveStateSink(core::LiveState& state, const sources::CounterSource& source, Listener listener = {});

  auto begin(const std::vector<core::DeviceInfo>& devices) -> core::Result<void> override;
  auto on_sample(const core::RawSample& raw, const core::SolSample& sol) -> core::Result<void> override;

 private:
  core::LiveState& state_;
  const sources::CounterSource& source_;
  Listener listener_;
};

/// The device states of a source (DeviceInfo, SourceKind, reason + hint as the note, lost).
[[nodiscard]] auto device_states_of(const sources::CounterSource& source) -> std::vector<core::DeviceState>;

/// The optional parts of a BackgroundEngine.
struct BackgroundEngineOptions {
  /// Completes each raw sample before derive() and the sinks see it (Engine::set_annotator); none when empty.
  std::function<void(core::RawSample&)> annotate;
  /// Where the engine's warnings go as they happen (a lost GPU, a sink that fell behind), written from the
  /// engine thread; null keeps them for warnings(). Must outlive the engine.
  std::ostream* warnings = nullptr;
  /// The engine thread's name for core::guarded_run: a fault ends the run with Internal "<name> stopped:
  /// <what>".
  std::string thread_name = "the sampling thread";
  /// Stop the source on the engine thread as soon as the run ends (it then holds no GPU counters while the
  /// owner goes on); no other thread may touch the source after that. False: the owner stops it.
  bool stop_source = false;
  /// PM yield (pm_yield_driver.hpp): with a board and a source that offers CounterYield, a ProfilerWatch runs
  /// beside the engine and a PmYieldStep before every poll; under PmPolicy::kNever neither, and every sample
  /// is marked instead (mark_policy_pause); nothing without a board.
  PmYieldSetup pm_yield;
};

/// The one way solscope drives a source (docs/design/architecture.md section 5): Engine::run on a thread of
/// its own, until stop(), a signal-set `external_stop` (seen within 100 ms), the duration, the source's end
/// (a replay), or an error. The thread runs under core::guarded_run: an exception ends the run with Internal
/// "<thread_name> stopped: <what>" as its result instead of terminating the process. Commands posted with
/// post() run on the engine thread between two polls (the only safe place to touch the source: sources are
/// not thread-safe), e.g. pausing or seeking a replay. With BackgroundEngineOptions::pm_yield, the PM yield
/// step runs there too, after the posted commands, and the profiler watch runs until stop(). Synchronous
/// commands wait(); views poll done().
class BackgroundEngine {
 public:
  /// Starts at once. `sinks`, `source` and `external_stop` must outlive this object. Warnings (a lost GPU)
  /// go where `extras` says.
  BackgroundEngine(sources::CounterSource& source, std::vector<SampleSink*> sinks, EngineOptions options,
                   const std::atomic<bool>& external_stop, BackgroundEngineOptions extras = {});
  ~BackgroundEngine();  ///< stops and joins
  BackgroundEngine(const BackgroundEngine&) = delete;
  auto operator=(const BackgroundEngine&) -> BackgroundEngine& = delete;

  /// Runs `command` on the engine thread before its next poll (within one poll interval).
  void post(std::function<void(sources::CounterSource&)> command);
  /// Asks the engine to stop (it makes one last poll, and every sink takes every sample) and waits for it;
  /// idempotent. From the owner's thread.
  void stop();
  /// Waits until the engine returns by itself (`external_stop`, the duration, the source's end, or an error)
  /// and returns its result. From the owner's thread.
  [[nodiscard]] auto wait() -> core::Result<RunSummary>;
  /// True once the engine returned (stopped, finished replay, or failed).
  [[nodiscard]] auto done() const -> bool { return done_.load(); }
  /// The engine's result once done(); nullopt while running.
  [[nodiscard]] auto result() const -> std::optional<core::Result<RunSummary>>;
  /// Warnings the engine printed (one per line), once done(); empty while it runs, or when they went to the
  /// stream of BackgroundEngineOptions::warnings.
  [[nodiscard]] auto warnings() const -> std::string;

 private:
  void run_commands();
  void run(const EngineOptions& options, const BackgroundEngineOptions& extras);

  sources::CounterSource& source_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> done_{false};
  mutable std::mutex mutex_;  ///< guards commands_ and result_
  std::vector<std::function<void(sources::CounterSource&)>> commands_;
  std::optional<core::Result<RunSummary>> result_;  ///< set once, under mutex_, just before done_
  /// Written only by the engine thread, without a lock; read only once done_ is true (the thread no longer
  /// writes it then, and done_'s store/load orders the writes before the read).
  std::ostringstream warnings_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<PmYieldStep> pm_yield_step_;     ///< touched only by the engine thread once it runs
  std::unique_ptr<ProfilerWatch> profiler_watch_;  ///< stopped by stop()
  core::ThreadFault fault_;
  std::thread thread_;
};

}  // namespace solscope::app
