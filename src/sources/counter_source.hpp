// CounterSource: the one interface every source of GPU figures implements (CUPTI PM sampling + NVML, NVML
// GPM, NVML basic, trace replay), so that everything above the sources runs the same on a GPU and on a
// recorded trace. What only some sources can do (list the processes on a device, control a playback clock)
// is an optional capability that a source offers through the interface: the app asks, and never casts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/device_info.hpp"
#include "core/pm_yield.hpp"
#include "core/raw_sample.hpp"
#include "core/result.hpp"
#include "core/sol_terms.hpp"

namespace solscope::sources {

/// What a caller asks of a source at start.
struct SourceConfig {
  /// Sampling interval in ns: 100 ms by default; 10 ms must work; 1 ms is the floor.
  std::int64_t interval_ns = 100'000'000;
  /// NVML indices of the devices to sample; empty = every device.
  std::vector<std::uint32_t> devices;
  /// The best source to try on each device: PmSampling (default) = the best that works; Gpm = skip PM
  /// sampling; NvmlOnly = NVML only. `solscope check --source` uses it to check each source in turn; the
  /// device's status() then says which source it got (a worse one when the asked one does not work).
  core::SourceKind best_source = core::SourceKind::PmSampling;
};

/// How one device is being sampled, and why: shown by `solscope devices` and beside each GPU in the views.
struct DeviceStatus {
  core::SourceKind source = core::SourceKind::None;  ///< the source chosen for this device
  std::string reason;  ///< why this source (and not a better one): "PM sampling denied: ...", "" when best
  std::string hint;    ///< what would give a better source (the exact fix), "" when none
  bool lost = false;   ///< the device stopped answering; its samples have ended
};

/// One process with a context on a device.
struct DeviceProcess {
  std::int32_t pid = 0;
  /// Device memory the process uses, in bytes; nullopt when the source cannot tell.
  std::optional<std::uint64_t> gpu_memory_bytes;
  /// Its SM utilization over the last window, percent of the device's SM time (NVML
  /// nvmlDeviceGetProcessUtilization `smUtil` of the samples since the previous refresh); 0 when the driver
  /// has no sample for it (NVML samples only processes with non-zero utilization: it was idle); nullopt when
  /// the driver does not report per-process utilization (NVML_ERROR_NOT_SUPPORTED, an older driver).
  std::optional<double> sm_pct;
  bool graphics = false;  ///< listed by nvmlDeviceGetGraphicsRunningProcesses (and not as compute)
  bool mps = false;       ///< listed by nvmlDeviceGetMPSComputeRunningProcesses: an MPS client
};

/// Optional capability of a source: the processes on each device (the NVIDIA source, through NVML).
/// Called only from the thread that drives the source.
class ProcessLister {
 public:
  virtual ~ProcessLister() = default;
  /// The processes with a context on `device` (an index from devices()), in the order the source lists them.
  /// Errors: FailedPrecondition when the source is not started, InvalidArgument for a device it does not
  /// sample, and the source's own query errors (the caller keeps its last list).
  [[nodiscard]] virtual auto processes_on(std::uint32_t device)
      -> core::Result<std::vector<DeviceProcess>> = 0;

 protected:
  ProcessLister() = default;
  ProcessLister(const ProcessLister&) = default;
  auto operator=(const ProcessLister&) -> ProcessLister& = default;
};

/// Optional capability of a source: a clock that can be paused, sped up and moved (a trace replay, an
/// imported recording). Called only from the thread that drives the source.
class PlaybackControl {
 public:
  virtual ~PlaybackControl() = default;
  /// Stops the clock (poll() returns nothing) until resume(). Idempotent.
  virtual void pause() = 0;
  /// Restarts the clock from where pause() left it. Idempotent.
  virtual void resume() = 0;
  [[nodiscard]] virtual auto paused() const -> bool = 0;
  /// Plays on at `speed` (recorded seconds per wall-clock second; 0 = as fast as possible). Errors:
  /// InvalidArgument for a negative or non-finite speed.
  [[nodiscard]] virtual auto set_speed(double speed) -> core::Result<void> = 0;
  /// Jumps to recorded time `t_ns` (ns on the recording's clock): the next sample is the first starting at
  /// or after it. Errors: FailedPrecondition before start(), and the recording's read errors.
  [[nodiscard]] virtual auto seek(std::int64_t t_ns) -> core::Result<void> = 0;
  /// The recorded time now playing, in ns.
  [[nodiscard]] virtual auto position_ns() const -> std::int64_t = 0;

 protected:
  PlaybackControl() = default;
  PlaybackControl(const PlaybackControl&) = default;
  auto operator=(const PlaybackControl&) -> PlaybackControl& = default;
};

/// Optional capability of a source that holds exclusive performance counters (the NVIDIA source's CUPTI PM
/// sampling): give them back to a profiler and take them again (core/pm_yield.hpp decides when). Called only
/// from the thread that drives the source.
class CounterYield {
 public:
  virtual ~CounterYield() = default;
  /// True when `device` uses, or could take again, exclusive counters: pausing means something for it.
  [[nodiscard]] virtual auto yields(std::uint32_t device) const -> bool = 0;
  /// Pauses (`reason` != kNone) or resumes (kNone) PM sampling of `device`. Pausing releases its counters at
  /// once; until resumed its samples come from the next best source that coexists with profilers (GPM on
  /// Hopper and newer, else NVML), each with kSamplePmPaused and `reason`; a new reason on a paused device
  /// only relabels it. Resuming reopens PM sampling. Errors: InvalidArgument for a device not sampled; on
  /// resume, Unavailable when CUPTI says the counters are taken (the device stays paused with kCountersBusy),
  /// and CUPTI's other errors (the device stays on its fallback source).
  [[nodiscard]] virtual auto set_pm_pause(std::uint32_t device, core::PmPauseReason reason)
      -> core::Result<void> = 0;
  /// The devices whose counters CUPTI said, during a poll, another profiler took (each with CUPTI's message)
  /// since the last call. The source has already moved them to their fallback source, paused with
  /// kCountersBusy.
  [[nodiscard]] virtual auto take_counters_busy() -> std::vector<std::pair<std::uint32_t, std::string>> = 0;

 protected:
  CounterYield() = default;
  CounterYield(const CounterYield&) = default;
  auto operator=(const CounterYield&) -> CounterYield& = default;
};

/// A source of RawSamples for a set of GPUs.
///
/// Life cycle: devices() may be called at any time; start() once; poll() repeatedly from one thread; stop()
/// once (also safe without start). Implementations are not thread-safe: one thread drives a source. Errors
/// are values: start() fails only when no device can be sampled at all; a single device that fails or
/// disappears later is reported through status(device).lost and the others continue.
class CounterSource {
 public:
  virtual ~CounterSource() = default;

  /// The devices this source can sample (after start(): those being sampled).
  [[nodiscard]] virtual auto devices() const -> std::vector<core::DeviceInfo> = 0;

  /// Begins sampling. Errors: InvalidArgument (bad interval or device index), NotFound (no device),
  /// PermissionDenied, Unavailable (counters held by another profiler and no fallback), DataLoss (replay
  /// file).
  [[nodiscard]] virtual auto start(const SourceConfig& config) -> core::Result<void> = 0;

  /// Returns the samples completed since the last call, in time order per device (possibly none). Does not
  /// block for longer than one decode of the hardware buffers. An error means the whole source has ended
  /// (replay exhausted is not an error: see finished()).
  [[nodiscard]] virtual auto poll() -> core::Result<std::vector<core::RawSample>> = 0;

  /// True when the source will produce no more samples (a replay at its end). Live sources return false.
  [[nodiscard]] virtual auto finished() const -> bool { return false; }

  /// Stops sampling and releases the counters. Idempotent.
  virtual void stop() = 0;

  /// How a device is sampled. `device` is an NVML index from devices(); unknown indices give
  /// SourceKind::None.
  [[nodiscard]] virtual auto status(std::uint32_t device) const -> DeviceStatus = 0;

  /// The processes on each device, or nullptr when this source cannot list them (a replay). The pointer
  /// lives as long as the source. This query (not the lister) may be made from any thread.
  [[nodiscard]] virtual auto process_lister() -> ProcessLister* { return nullptr; }

  /// Pausing of exclusive counters, or nullptr when this source holds none (a replay, dcgm-exporter). The
  /// pointer lives as long as the source. This query (not the capability) may be made from any thread.
  [[nodiscard]] virtual auto counter_yield() -> CounterYield* { return nullptr; }

  /// Control of the playback clock, or nullptr for a live source. The pointer lives as long as the source.
  /// This query (not the control) may be made from any thread.
  [[nodiscard]] virtual auto playback() -> PlaybackControl* { return nullptr; }
};

}  // namespace solscope::sources
