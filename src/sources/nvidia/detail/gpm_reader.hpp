// GpmReader: NVML GPU Performance Monitoring (GPM, Hopper and newer) for one device: two sample buffers, and
// every catalog metric with a GPM id computed over the interval between them.
//
// GPM uses its own hardware, needs no profiling privilege and coexists with profilers (DCGM #62, doc section
// 4): the fallback when PM sampling is denied or busy. NVML's reference asks for more than 100 ms between two
// nvmlGpmSampleGet calls (nvml.h, nvmlGpmMetricsGet): shorter intervals are stretched to that.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/raw_sample.hpp"
#include "core/result.hpp"
#include "sources/nvidia/nvml_api.hpp"

namespace solscope::nvidia {

/// The shortest interval between two GPM samples: "greater than 100ms due to the internal sample refresh
/// rate" (nvml.h, nvmlGpmSampleGet).
inline constexpr std::int64_t kGpmMinIntervalNs = 100'000'000;

/// Whether NVML GPM works on a device. `reason` says why not, for DeviceStatus.
struct GpmSupportInfo {
  bool supported = false;
  std::string reason;  ///< "" when supported
};

/// Asks nvmlGpmQueryDeviceSupport. Unsupported (with the reason) when the library lacks the GPM functions,
/// the call fails or the device says no (GPUs before Hopper).
[[nodiscard]] auto query_gpm_support(const NvmlApi& api, nvml::Device device) -> GpmSupportInfo;

/// One catalog metric read from GPM: the catalog row's id, GPM metric id and scale (core/metric_catalog.cpp).
struct GpmMetricMap {
  core::MetricId id;
  unsigned int gpm_metric_id;
  double scale;  ///< GPM value x scale = the catalog unit (MiB/s -> B/s for byte rates)
};

/// Every catalog metric with `gpm_metric_id != 0`, in catalog order.
[[nodiscard]] auto gpm_metric_maps() -> std::vector<GpmMetricMap>;

/// GPM on one device. Move-only; frees its sample buffers on destruction. Not thread-safe.
class GpmReader {
 public:
  /// Checks support, allocates two sample buffers and takes the first sample at `now_ns` (Unix-epoch ns, host
  /// clock). With `gpu_instance_id`, `device` is the parent GPU and every sample is that MIG GPU instance's
  /// (nvmlGpmMigSampleGet(device, id, sample), Hopper and newer) instead of nvmlGpmSampleGet's. Errors:
  /// Unimplemented (no GPM on this device or driver, or no nvmlGpmMigSampleGet for an instance, with the
  /// reason), Unavailable (GPU lost or NVML refused a buffer or the first sample).
  [[nodiscard]] static auto open(NvmlApi api, nvml::Device device, std::uint32_t device_index,
                                 std::int64_t now_ns, std::optional<unsigned int> gpu_instance_id = {})
      -> core::Result<GpmReader>;

  GpmReader(GpmReader&& other) noexcept;
  auto operator=(GpmReader&& other) noexcept -> GpmReader&;
  GpmReader(const GpmReader&) = delete;
  auto operator=(const GpmReader&) -> GpmReader& = delete;
  ~GpmReader();

  /// Takes a sample at `now_ns` and returns the metrics over [previous sample, now_ns): source Gpm, every GPM
  /// catalog metric scaled to its catalog unit, NaN where NVML gave no value. nullopt (and no NVML call)
  /// while less than kGpmMinIntervalNs has passed since the previous sample. A metric NVML reports as not
  /// supported is not asked for again. Errors: Unavailable when the GPU is lost (NVML_ERROR_GPU_IS_LOST) or
  /// the sample fails; the reader stays usable after a failure that is not a loss.
  [[nodiscard]] auto sample(std::int64_t now_ns) -> core::Result<std::optional<core::RawSample>>;

  /// True once NVML said the GPU is lost.
  [[nodiscard]] auto lost() const -> bool { return lost_; }

 private:
  GpmReader(NvmlApi api, nvml::Device device, std::uint32_t device_index);
  void release();
  /// nvmlGpmSampleGet, or nvmlGpmMigSampleGet for a GPU instance.
  auto take(nvml::GpmSample sample) -> nvml::Return;
  auto compute(core::RawSample& out) -> nvml::Return;

  NvmlApi api_;
  nvml::Device device_ = nullptr;
  std::uint32_t device_index_ = 0;
  std::optional<unsigned int> gpu_instance_id_;  ///< set: a MIG GPU instance of `device_`
  nvml::GpmSample previous_ = nullptr;
  nvml::GpmSample current_ = nullptr;
  std::int64_t previous_ns_ = 0;
  bool lost_ = false;
  std::vector<GpmMetricMap> metrics_;             ///< still asked for (unsupported ones are dropped)
  std::unique_ptr<nvml::GpmMetricsGet> request_;  ///< 13 KB: allocated once
};

}  // namespace solscope::nvidia
