// The workload refresh of a recording (issue 24): a ProcessRefresher beside the engine whose changes go into
// the trace's workloads table (trace::Writer::add_workloads), and the LiveState it reads the GPUs and the
// sample clock from. `solscope record` and `solscope run` use it.
#pragma once

#include <memory>
#include <string>

#include "core/live_state.hpp"
#include "runtime/engine_loop.hpp"
#include "runtime/live_feed.hpp"
#include "runtime/process_refresh.hpp"
#include "trace/writer.hpp"

namespace solscope::app {

/// `base` with its on_change writing each change to `writer` at the sample clock's time (CLOCK_REALTIME now
/// when no sample has come yet: t_ns 0) (Writer::add_workloads, which is thread-safe; a
/// failure stops the writer, and the sampling thread's next write reports it, so the callback drops it).
/// `writer` must outlive every call of on_change.
[[nodiscard]] auto recording_refresh_options(trace::Writer& writer, WorkloadRefreshOptions base)
    -> WorkloadRefreshOptions;

/// Built before the engine: active only when `source` lists the GPUs' processes (a live NVIDIA source; not a
/// replay, a dcgm-exporter or an import), and then it marks the trace (Writer::set_workload_refresh). Add
/// sink() to the engine's sinks and pass companion() to run_engine, which starts the refresher once the
/// engine runs and ends it before the engine stops. Not thread-safe; `writer` and `source` must outlive it.
class WorkloadRecording {
 public:
  WorkloadRecording(trace::Writer& writer, sources::CounterSource& source,
                    WorkloadRefreshOptions options = {});
  WorkloadRecording(const WorkloadRecording&) = delete;
  auto operator=(const WorkloadRecording&) -> WorkloadRecording& = delete;

  /// True when the source lists processes and the trace was marked.
  [[nodiscard]] auto active() const -> bool { return active_; }
  /// Keeps the LiveState's devices and sample clock (newest_ns, the t_ns of each change) current.
  [[nodiscard]] auto sink() -> SampleSink& { return sink_; }
  /// For run_engine(): starts the refresher beside the engine; empty when not active.
  [[nodiscard]] auto companion() -> EngineCompanion;
  /// "" while refreshing or never started; "process refresh stopped: <what>" once an exception stopped it.
  [[nodiscard]] auto status() const -> const std::string& { return status_; }

 private:
  core::LiveState state_;
  LiveStateSink sink_;
  WorkloadRefreshOptions options_;
  bool active_ = false;
  std::unique_ptr<ProcessRefresher> refresher_;
  std::string status_;
};

}  // namespace solscope::app
