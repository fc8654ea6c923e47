// Sinks of the sampling commands: JSON Lines on a stream, and the SQLite trace writer.
#pragma once

#include <map>
#include <memory>
#include <ostream>

#include "app/engine.hpp"
#include "trace/writer.hpp"

namespace solscope::app {

/// Writes one JSON object per sample and line (trace::sol_sample_to_json), flushed after each batch.
class JsonLinesSink : public SampleSink {
 public:
  explicit JsonLinesSink(std::ostream& out) : out_(out) {}
  auto begin(const std::vector<core::DeviceInfo>& devices) -> core::Result<void> override;
  auto on_sample(const core::RawSample& raw, const core::SolSample& sol) -> core::Result<void> override;
  auto flush() -> core::Result<void> override;

 private:
  std::ostream& out_;
  std::map<std::uint32_t, core::DeviceInfo> devices_;
};

/// Appends every sample to a trace file (batched transactions; see trace::Writer).
class TraceSink : public SampleSink {
 public:
  explicit TraceSink(trace::Writer& writer) : writer_(writer) {}
  auto begin(const std::vector<core::DeviceInfo>& devices) -> core::Result<void> override;
  auto on_sample(const core::RawSample& raw, const core::SolSample& sol) -> core::Result<void> override;

 private:
  trace::Writer& writer_;
};

}  // namespace solscope::app
