// CounterSource: the one interface every source of GPU figures implements (CUPTI PM sampling + NVML, NVML
// GPM, NVML basic, trace replay), so that everything above the sources runs the same on a GPU and on a
// recorded trace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/device_info.hpp"
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
};

/// How one device is being sampled, and why: shown by `solscope devices` and beside each GPU in the views.
struct DeviceStatus {
  core::SourceKind source = core::SourceKind::None;  ///< the source chosen for this device
  std::string reason;  ///< why this source (and not a better one): "PM sampling denied: ...", "" when best
  std::string hint;    ///< what would give a better source (the exact fix), "" when none
  bool lost = false;   ///< the device stopped answering; its samples have ended
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
};

}  // namespace solscope::sources
