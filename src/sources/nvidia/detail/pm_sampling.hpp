// PmSampling: the seam between the NVIDIA source (which picks a source per GPU and merges NVML figures in)
// and the CUPTI PM sampler, so that the composition is testable with a fake and the sampler with a fake CUPTI
// table.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/raw_sample.hpp"
#include "core/result.hpp"

namespace solscope::nvidia {

/// A device that stopped answering during a poll, and why.
struct PmDeviceFault {
  std::uint32_t nvml_index = 0;
  core::Error error;
};

/// What one poll of the PM sampler produced.
struct PmPoll {
  /// Completed samples of every open device, in time order per device. Only the PM-sampled metrics are set
  /// (others NaN); source = SourceKind::PmSampling; times in Unix-epoch ns.
  std::vector<core::RawSample> samples;
  /// Devices that failed for good in this poll; they are closed and produce no more samples.
  std::vector<PmDeviceFault> lost;
  /// Devices whose counters another profiler took in this poll (CUPTI's "hardware busy" class, e.g.
  /// CUPTI_ERROR_HARDWARE_BUSY from cuptiPmSamplingDecodeData, or a restart refused as busy). They are closed
  /// like lost ones, but the GPU is still there: open() may start them again once the profiler is gone. The
  /// error is Unavailable "GPU counters held by another profiler ... (<call>: <CUPTI result>)".
  std::vector<PmDeviceFault> busy;
};

/// CUPTI PM sampling of several GPUs (one process-wide owner of CUPTI's profiler state). Not thread-safe.
class PmSampling {
 public:
  virtual ~PmSampling() = default;

  /// Starts PM sampling on the GPU with this NVML index and PCI bus id ("domain:bus:device.function"), every
  /// `interval_ns`. Returns the CUPTI chip name ("GH100"). Only call it after the driver and NVML answered
  /// for the device (CUPTI crashes otherwise). Errors: NotFound (libcupti or the CUDA device), Unimplemented
  /// (chip without a single-pass set, libcupti older than 12.6), PermissionDenied (profiling restricted to
  /// admin users), Unavailable (counters held by another profiler: DCGM, Nsight, another solscope).
  [[nodiscard]] virtual auto open(std::uint32_t nvml_index, std::string_view pci_bus_id,
                                  std::int64_t interval_ns) -> core::Result<std::string> = 0;

  /// Decodes the hardware buffers of every open device.
  [[nodiscard]] virtual auto poll() -> PmPoll = 0;

  /// Stops and releases PM sampling of one device, so that a profiler can take its counters: the documented
  /// teardown (docs/design/cupti-pm-sampling.md section 1.6) for that device alone, Stop -> last decode (rows
  /// dropped) -> Disable -> host deinitialize. The other devices go on; CUPTI's process-wide profiler state
  /// stays initialised until close_all(). After it, poll() gives no sample of the device, and open() may
  /// start it again. No-op for a device that is not open. Never fails (the device may be gone).
  virtual void close(std::uint32_t nvml_index) = 0;

  /// Stops and releases every device. Idempotent.
  virtual void close_all() = 0;
};

}  // namespace solscope::nvidia
