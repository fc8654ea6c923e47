// Sinks of the sampling commands: JSON Lines on a stream, and the SQLite trace writer.
#pragma once

#include <map>
#include <memory>
#include <ostream>
#include <string>

#include "runtime/engine.hpp"
#include "trace/writer.hpp"

namespace solscope::app {

/// Flushes a sink's output stream. Errors: Unavailable "cannot write to standard output"; when `out` is
/// std::cout and the reader of its pipe went away (e.g. `solscope --json | head`), the error is_reader_gone()
/// recognises, which the sampling commands treat as a normal stop (exit 0, nothing printed), as a filter's
/// upstream should.
[[nodiscard]] auto flush_output(std::ostream& out) -> core::Result<void>;
/// True for flush_output()'s error when the pipe's reader went away.
[[nodiscard]] auto is_reader_gone(const core::Error& error) -> bool;

/// Writes one JSON object per sample and line (wire::append_sol_sample_json: the bytes of
/// wire::sol_sample_to_json without building the document), flushed whenever it has caught up.
/// A live view: when its reader stalls (`--json | less`), it skips its oldest unread samples and the engine
/// counts them (SinkDelivery); sampling goes on.
class JsonLinesSink : public SampleSink {
 public:
  explicit JsonLinesSink(std::ostream& out) : out_(out) {}
  auto begin(const std::vector<core::DeviceInfo>& devices) -> core::Result<void> override;
  auto on_sample(const core::RawSample& raw, const core::SolSample& sol) -> core::Result<void> override;
  auto flush() -> core::Result<void> override;
  [[nodiscard]] auto delivery() const -> SinkDelivery override {
    return {.name = "the JSON Lines output"};  // the default live-view delivery
  }

 private:
  std::ostream& out_;
  std::map<std::uint32_t, core::DeviceInfo> devices_;
  std::string line_;  ///< the line being written, reused so that a sample allocates nothing once warm
};

/// Appends every sample to a trace file (batched transactions; see trace::Writer). A recording never drops a
/// sample: when the disk is slower than sampling, up to kTraceQueueSamples wait in memory, then sampling
/// waits for the disk (back-pressure) and the engine says so.
class TraceSink : public SampleSink {
 public:
  /// Samples that may wait in memory for the disk (about 1 KiB each: 8 MiB).
  static constexpr std::size_t kTraceQueueSamples = 8192;

  explicit TraceSink(trace::Writer& writer) : writer_(writer) {}
  auto begin(const std::vector<core::DeviceInfo>& devices) -> core::Result<void> override;
  auto on_sample(const core::RawSample& raw, const core::SolSample& sol) -> core::Result<void> override;
  [[nodiscard]] auto delivery() const -> SinkDelivery override {
    return {.overflow = core::Overflow::Wait, .capacity = kTraceQueueSamples, .name = "the trace file"};
  }

 private:
  trace::Writer& writer_;
};

}  // namespace solscope::app
