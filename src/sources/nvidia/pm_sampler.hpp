// PmSampler: CUPTI PM sampling of several GPUs, the implementation of PmSampling.
//
// It drives CUPTI and the CUDA driver only through the CuptiApi and CudaApi tables (cupti_api.hpp,
// cuda_api.hpp), which it loads on the first open() unless a test hands it fakes. This header includes no
// NVIDIA header. Source: docs/design/cupti-pm-sampling.md (call sequence section 1, errors section 4,
// pitfalls section 7).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "sources/library_search.hpp"
#include "sources/nvidia/detail/pm_sampling.hpp"

namespace solscope::nvidia {

struct CuptiApi;
struct CudaApi;
struct PmDevice;

/// Tunables of a PmSampler. Defaults follow doc section 1.4 for a 1-100 ms interval polled every 100-250 ms.
struct PmSamplerOptions {
  /// The caller's poll period in ns (expected): sizes the counter-data image to 3x the samples of one period
  /// (pm_max_samples). Polling much slower than this costs extra decode rounds, never samples.
  std::int64_t decode_period_ns = 250'000'000;
  /// Device-side record buffer per GPU in bytes (doc: 32-64 MiB; kineto and XLA use 64 MiB).
  std::size_t hardware_buffer_bytes = 64u << 20;
  /// Consecutive failed decodes after which a device is reported lost.
  int max_decode_failures = 3;
  /// Where the default loader looks for libcupti (the app fills it from the environment).
  sources::LibrarySearch cupti_search;
};

/// Where PmSampler gets its libraries and its clock. Empty members mean the real thing: load_cupti(),
/// load_cuda(), and CLOCK_REALTIME in ns. Tests pass fakes.
struct PmSamplerDeps {
  std::function<core::Result<std::shared_ptr<CuptiApi>>()> load_cupti;
  std::function<core::Result<std::shared_ptr<CudaApi>>()> load_cuda;
  std::function<std::int64_t()> realtime_ns;
};

/// CUPTI PM sampling of several GPUs; the one owner of CUPTI's process-wide profiler state (at most one
/// PmSampler holds it at a time: a second one's open() fails with FailedPrecondition). Not thread-safe: one
/// thread calls open(), poll(), close() and close_all().
///
/// open() follows doc section 1: libcuda + cuInit -> the CUDA ordinal of the PCI bus id -> libcupti (>= 12.6)
/// -> cuptiProfilerInitialize (once) -> DeviceSupported -> GetChipName -> GetCounterAvailability -> host
/// config (PmConfig, one pass) -> Enable -> SetConfig -> GetCounterDataSize -> CounterDataImageInitialize ->
/// Start. No target-side CUPTI call happens before cuInit succeeded and the bus id matched a CUDA device
/// (CUPTI crashes without a driver: doc section 8). poll() decodes every device (decode_device in
/// pm_session.hpp); a device that fails is reported in PmPoll::lost, one whose counters another profiler took
/// in PmPoll::busy, and either is closed while the others continue. close(i) stops one device (Stop -> last
/// decode -> Disable -> host deinit) and keeps CUPTI's profiler state for the others and for a later open(i);
/// close_all() stops each device the same way and then calls cuptiProfilerDeInitialize once.
class PmSampler final : public PmSampling {
 public:
  explicit PmSampler(PmSamplerOptions options = {}, PmSamplerDeps deps = {});
  ~PmSampler() override;
  PmSampler(const PmSampler&) = delete;
  auto operator=(const PmSampler&) -> PmSampler& = delete;

  /// See PmSampling::open. `interval_ns` must be > 0 (InvalidArgument otherwise). Extra errors: Unavailable
  /// "no NVIDIA driver" (libcuda missing or cuInit failing), FailedPrecondition (device already open, or
  /// another PmSampler owns CUPTI).
  [[nodiscard]] auto open(std::uint32_t nvml_index, std::string_view pci_bus_id, std::int64_t interval_ns)
      -> core::Result<std::string> override;
  [[nodiscard]] auto poll() -> PmPoll override;
  void close(std::uint32_t nvml_index) override;
  void close_all() override;

  /// Counter names libcupti rejected on this device and that are therefore NaN (empty normally, or for an
  /// unknown index).
  [[nodiscard]] auto dropped_counters(std::uint32_t nvml_index) const -> std::vector<std::string>;

 private:
  auto ensure_driver() -> core::Result<void>;
  auto ensure_cupti() -> core::Result<void>;
  auto ensure_profiler() -> core::Result<void>;
  auto open_device(std::uint32_t nvml_index, std::string_view pci_bus_id, std::int64_t interval_ns)
      -> core::Result<std::unique_ptr<PmDevice>>;
  void close_device(PmDevice& device, bool drain);

  PmSamplerOptions options_;
  PmSamplerDeps deps_;
  std::shared_ptr<CuptiApi> cupti_;
  std::shared_ptr<CudaApi> cuda_;
  bool driver_ready_ = false;
  bool profiler_initialized_ = false;
  std::uint32_t max_samples_ = 0;  ///< fixed at the first open: every image has the same slot count (doc 7)
  std::vector<std::unique_ptr<PmDevice>> devices_;
};

/// A PmSampler with the real libraries, as the PmSampling seam.
[[nodiscard]] auto make_pm_sampler(PmSamplerOptions options = {}) -> std::unique_ptr<PmSampling>;

}  // namespace solscope::nvidia
