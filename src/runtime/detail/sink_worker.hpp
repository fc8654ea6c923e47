// SinkWorker: one SampleSink on a thread of its own, fed by the engine's thread through a bounded queue
// (core::BoundedQueue), so that a slow sink never stalls sampling beyond what its SinkDelivery allows.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/bounded_queue.hpp"
#include "core/guarded_run.hpp"
#include "runtime/engine.hpp"

namespace solscope::app {

/// Runs `sink.on_sample()` and `sink.flush()` on its own thread for the samples offer()ed to it, in order.
/// The thread flushes the sink each time it has caught up with the queue. A sink error (or exception) stops
/// the worker: later offers return Closed and error() says why.
class SinkWorker {
 public:
  /// Starts the thread. `sink` must outlive this object.
  SinkWorker(SampleSink& sink, SinkDelivery delivery);
  ~SinkWorker();  ///< finish()es, dropping its error
  SinkWorker(const SinkWorker&) = delete;
  auto operator=(const SinkWorker&) -> SinkWorker& = delete;

  /// Queues a copy of one sample (the engine's thread). Wait policy: blocks while the queue is full. Closed
  /// once the sink failed or finish() was called.
  auto offer(const core::RawSample& raw, const core::SolSample& sol) -> core::PushResult;

  /// Closes the queue, waits until the sink has taken and flushed every queued sample, and joins the thread.
  /// Returns the sink's first error (Internal "<name> stopped: <what>" when it threw). Idempotent.
  auto finish() -> core::Result<void>;

  /// Waits at most `bound` until the sink has taken (or the queue dropped) every sample offered so far, or
  /// failed; true when it caught up. For a step that must follow every earlier sample (a replay seek clears
  /// the live state after them).
  auto wait_caught_up(std::chrono::milliseconds bound) -> bool;

  /// The sink's first error so far; nullopt while it has none. Thread-safe.
  [[nodiscard]] auto error() const -> std::optional<core::Error>;
  /// Samples queued, dropped (DropOldest) and waits (Wait) so far.
  [[nodiscard]] auto counters() const -> core::QueueCounters { return queue_.counters(); }
  [[nodiscard]] auto delivery() const -> const SinkDelivery& { return delivery_; }

 private:
  struct Item {
    core::RawSample raw;
    core::SolSample sol;
  };
  void run();
  void fail(core::Error error);

  SampleSink& sink_;
  SinkDelivery delivery_;
  core::BoundedQueue<Item> queue_;
  core::ThreadFault fault_;
  mutable std::mutex mutex_;  ///< guards error_ and handled_
  std::condition_variable caught_up_;
  std::optional<core::Error> error_;
  std::uint64_t handled_ = 0;  ///< samples the sink has taken and flushed
  std::thread thread_;
};

}  // namespace solscope::app
