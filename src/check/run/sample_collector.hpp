// The sampling thread of `solscope check`: polls a started CounterSource while the main thread drives the
// kernels, and keeps every sample in memory (a check lasts about a minute: some thousands of samples).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/guarded_run.hpp"
#include "core/raw_sample.hpp"
#include "core/result.hpp"
#include "sources/counter_source.hpp"

namespace solscope::app {

/// Polls `source` every `poll_interval_ns` (real time) on its own thread from start() until finish(). The
/// source is driven by that thread alone in between (CounterSource is not thread-safe): the caller starts it
/// before start() and stops it after finish().
class SampleCollector {
 public:
  SampleCollector(sources::CounterSource& source, std::int64_t poll_interval_ns);
  ~SampleCollector();
  SampleCollector(const SampleCollector&) = delete;
  auto operator=(const SampleCollector&) -> SampleCollector& = delete;

  /// Starts the thread.
  void start();
  /// Stops the thread after one last poll and returns every sample in poll order. Errors: the first poll
  /// error (the source has ended; the samples before it are lost to the caller) or Internal when the thread
  /// stopped on an exception.
  [[nodiscard]] auto finish() -> core::Result<std::vector<core::RawSample>>;

 private:
  void loop();
  void poll_once();
  void join();  ///< tells the thread to stop and waits for it (no-op when it is not running)

  sources::CounterSource& source_;
  std::int64_t poll_interval_ns_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;  ///< guarded by mutex_
  std::thread thread_;
  std::vector<core::RawSample> samples_;
  std::optional<core::Error> error_;
  core::ThreadFault fault_;
};

}  // namespace solscope::app
