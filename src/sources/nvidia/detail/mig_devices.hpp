// MIG devices: the MIG instances of one MIG-enabled GPU, found through NVML's MIG API, as devices of their
// own (core::DeviceInfo with the instance's UUID, ids, profile, SMs, memory and shares of the parent).
//
// NVML calls a compute instance reached through nvmlDeviceGetMigDeviceHandleByIndex a "MIG device"; its
// handle answers nvmlDeviceGetUUID ("MIG-<uuid>", R470 and newer), nvmlDeviceGetName ("<GPU name> MIG
// 3g.40gb"), nvmlDeviceGetGpuInstanceId, nvmlDeviceGetComputeInstanceId and nvmlDeviceGetAttributes_v2 (SMs,
// slices, MiB), and, per instance, memory and process queries; utilization rates are "not currently
// supported" on MIG-enabled GPUs [nvml.h, nvmlDeviceGetUtilizationRates, nvmlDeviceGetMemoryInfo,
// nvmlDeviceGetComputeRunningProcesses_v3, "Multi Instance GPU Management"]. nvmlDeviceGetGpuInstanceById
// "requires privileged user", so the profile name comes from the MIG device's name, not from the GPU
// instance.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/device_info.hpp"
#include "core/metric_id.hpp"
#include "sources/nvidia/nvml_api.hpp"

namespace solscope::nvidia {

/// The NVML figures a MIG device shares with its GPU and that solscope reads on the parent handle: SM and
/// memory clocks, power, power limit, temperature. They are the whole GPU's, not the instance's (NVML has no
/// per-instance power or clock; nvidia-smi shows them per GPU only).
inline constexpr std::array kMigParentMetrics{core::MetricId::SmClockMhz, core::MetricId::MemClockMhz,
                                              core::MetricId::PowerW, core::MetricId::PowerLimitW,
                                              core::MetricId::TemperatureC};

/// One MIG device (a compute instance) of a GPU.
struct MigDevice {
  nvml::Device handle = nullptr;  ///< the MIG device handle
  core::DeviceInfo info;          ///< see enumerate_mig_devices
};

/// What enumerating one GPU's MIG devices found.
struct MigLayout {
  std::vector<MigDevice> devices;  ///< in NVML's MIG device index order
  /// Why the GPU is not split into MIG devices ("" when `devices` is not empty): an NVML without the MIG
  /// functions, a failed call, or no instance created yet.
  std::string note;
  bool lost = false;  ///< NVML said NVML_ERROR_GPU_IS_LOST for the parent
};

/// The parent's whole-GPU figures from NVML's GPU-instance profiles: the most SMs and MiB any profile has
/// (the full "7g" profile: 98 SMs on an A100, 132 on an H100 SXM; nvmlDeviceGetGpuInstanceProfileInfoV over
/// NVML_GPU_INSTANCE_PROFILE_* 0 .. kGpuInstanceProfileCount-1). 0 when NVML gave none.
struct MigParentFigures {
  unsigned int sm_count = 0;
  unsigned long long memory_mib = 0;
  std::vector<nvml::GpuInstanceProfileInfoV2> profiles;  ///< every profile NVML answered
};

/// Asks NVML for the parent's GPU-instance profiles (see MigParentFigures). Never fails: an NVML without
/// nvmlDeviceGetGpuInstanceProfileInfoV, or a parent that answers no profile, gives zeros.
[[nodiscard]] auto mig_parent_figures(const NvmlApi& api, nvml::Device parent) -> MigParentFigures;

/// Lists the MIG devices of `parent` (MIG mode on), numbering them `first_index`, `first_index` + 1, ...
/// Each DeviceInfo has: index (that number), uuid (the "MIG-..." UUID), parent_uuid, gpu_index (the parent's
/// NVML index), name, pci_bus_id and max clocks (the parent's), mig_profile (the GPU-instance profile,
/// "3g.40gb", from the MIG device's name, else the parent's profile of the same slices and memory),
/// mig_instance_id (GPU_I_ID), mig_compute_instance_id, sm_count (the instance's SMs), memory_total_bytes
/// (memorySizeMB x MiB), mig_sm_share and mig_memory_share (the instance's SMs and MiB over
/// MigParentFigures'; NaN when NVML gave no profile) and dram_peak_bytes_per_s (the parent's x
/// mig_memory_share). MIG device indices NVML answers NOT_FOUND for are skipped (NVML numbers them up to
/// nvmlDeviceGetMaxMigDeviceCount with gaps). A device whose ids or attributes NVML does not give is left
/// out.
[[nodiscard]] auto enumerate_mig_devices(const NvmlApi& api, nvml::Device parent,
                                         const core::DeviceInfo& parent_info, std::uint32_t first_index)
    -> MigLayout;

/// The GPU-instance profile in a MIG device name: "NVIDIA A100-SXM4-80GB MIG 3g.40gb" -> "3g.40gb", "MIG
/// 1c.3g.40gb" (a compute instance smaller than its GPU instance) -> "3g.40gb", "MIG 1g.10gb+me" ->
/// "1g.10gb+me". "" when the name has no "MIG " part.
[[nodiscard]] auto mig_profile_from_name(std::string_view name) -> std::string;

/// The architecture's name for messages: "Ampere", "Hopper", ...; "this GPU's" when unknown.
[[nodiscard]] auto architecture_name(nvml::Architecture arch) -> std::string_view;

}  // namespace solscope::nvidia
