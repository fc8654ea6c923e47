// The sampling of `solscope check`: a BackgroundEngine (the one driver of a source) polls a started
// CounterSource while the main thread drives the kernels, and a sink of that engine keeps every sample in
// memory (a check lasts about a minute: some thousands of samples).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/raw_sample.hpp"
#include "core/result.hpp"
#include "runtime/engine.hpp"
#include "sources/counter_source.hpp"

namespace solscope::app {

class BackgroundEngine;

/// A sink that keeps every raw sample, in source order. It never drops one: the engine waits for it when its
/// queue of `kCapacity` samples is full.
class SampleStore : public SampleSink {
 public:
  static constexpr std::size_t kCapacity = 8192;  ///< samples queued between the engine and the store

  auto begin(const std::vector<core::DeviceInfo>& devices) -> core::Result<void> override;
  auto on_sample(const core::RawSample& raw, const core::SolSample& sol) -> core::Result<void> override;
  [[nodiscard]] auto delivery() const -> SinkDelivery override;
  /// The samples kept so far; only once the engine that fed the store has returned.
  [[nodiscard]] auto take() -> std::vector<core::RawSample> { return std::move(samples_); }

 private:
  std::vector<core::RawSample> samples_;
};

/// Runs a BackgroundEngine over `source`, polling every `poll_interval_ns` (real time, >= 1 ms), from start()
/// until finish(), into a SampleStore. The source is driven by the engine's thread alone in between
/// (CounterSource is not thread-safe): the caller starts it before start() and stops it after finish().
class SampleCollector {
 public:
  SampleCollector(sources::CounterSource& source, std::int64_t poll_interval_ns);
  ~SampleCollector();  ///< stops the engine
  SampleCollector(const SampleCollector&) = delete;
  auto operator=(const SampleCollector&) -> SampleCollector& = delete;

  /// Starts the engine (its first poll is at once).
  void start();
  /// Stops the engine after one last poll and returns every sample in poll order (none when start() was not
  /// called). Errors: the first poll error (the source has ended; the samples before it are lost to the
  /// caller), InvalidArgument for a poll interval below 1 ms, or Internal "the check's sampling thread
  /// stopped: <what>" when the engine's thread stopped on an exception.
  [[nodiscard]] auto finish() -> core::Result<std::vector<core::RawSample>>;

 private:
  sources::CounterSource& source_;
  std::int64_t poll_interval_ns_;
  const std::atomic<bool> no_signal_stop_{false};  ///< the check's stop flag ends phases, not sampling
  SampleStore store_;
  std::unique_ptr<BackgroundEngine> engine_;
};

}  // namespace solscope::app
