// Shared steps of the sampling commands: running the engine (a BackgroundEngine, the one driver of a source)
// until a signal, and mapping its result.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <vector>

#include "runtime/engine.hpp"
#include "runtime/pm_yield_driver.hpp"

namespace solscope::app {

class BackgroundEngine;

/// Something that runs beside the engine and posts to it (a ProcessRefresher: WorkloadRecording): made once
/// the engine runs, released before it is stopped. May return null.
using EngineCompanion = std::function<std::shared_ptr<void>(BackgroundEngine& engine)>;

/// How often the engine polls a source sampling every `interval_ns`: the interval itself, but no more often
/// than every 100 ms (PM sampling buffers samples on the GPU, so 10 wake-ups a second serve a 1-10 ms
/// interval and keep the sampling path's CPU low; measured in bench/sampling_path_bench.cpp).
[[nodiscard]] auto poll_interval_for(std::int64_t interval_ns) -> std::int64_t;

/// Runs a BackgroundEngine over `source` and waits for it: until SIGINT/SIGTERM, the duration, or the end of
/// a replay; then stops the source. `annotate`, when set, completes each raw sample first
/// (Engine::set_annotator). `pm_yield` yields the counters to profilers (BackgroundEngineOptions::pm_yield;
/// none without a board). The engine's warnings go to `err` as they happen. Prints a failure and returns its
/// exit code (kExitOk when stopped by a signal, or when the reader of stdout went away). `companion`, when
/// set, runs beside the engine (EngineCompanion).
[[nodiscard]] auto run_engine(sources::CounterSource& source, std::vector<SampleSink*> sinks,
                              const EngineOptions& options, std::ostream& err,
                              std::function<void(core::RawSample&)> annotate = {}, PmYieldSetup pm_yield = {},
                              const EngineCompanion& companion = {}) -> int;

}  // namespace solscope::app
