// Static facts about one GPU, gathered once by a source at start.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

namespace solscope::core {

/// One GPU as a source sees it. Unknown numbers are 0 (counts) or NaN (rates, clocks); unknown strings are
/// empty.
struct DeviceInfo {
  std::uint32_t index = 0;     ///< NVML index (PCI bus order); RawSample::device_index refers to it
  std::string uuid;            ///< "GPU-xxxxxxxx-..." as NVML prints it
  std::string name;            ///< marketing name, e.g. "NVIDIA H100 80GB HBM3"
  std::string chip;            ///< CUPTI chip name, e.g. "GH100"; empty when unknown
  std::string pci_bus_id;      ///< "domain:bus:device.function", e.g. "00000000:17:00.0"
  std::uint32_t sm_count = 0;  ///< streaming multiprocessors; 0 when unknown
  double max_sm_clock_mhz = std::numeric_limits<double>::quiet_NaN();
  double max_mem_clock_mhz = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t memory_total_bytes = 0;
  /// Peak DRAM bandwidth in bytes/s: bus width (bits) / 8 x max memory clock (Hz) x 2 transfers per clock
  /// (DDR/HBM), e.g. H100 SXM 5120 / 8 x 2619e6 x 2 = 3.35e12. NaN when NVML does not give both figures.
  double dram_peak_bytes_per_s = std::numeric_limits<double>::quiet_NaN();
  /// Machine the GPU is in (dcgm-exporter's `Hostname`, an import's host); empty = this machine.
  std::string host;
  /// MIG GPU-instance profile, e.g. "1g.10gb" (dcgm-exporter `GPU_I_PROFILE`); empty = not a MIG slice.
  std::string mig_profile;
  /// MIG GPU-instance id (dcgm-exporter `GPU_I_ID`); -1 = not a MIG slice.
  std::int32_t mig_instance_id = -1;
  /// MIG compute-instance id within the GPU instance (NVML `nvmlDeviceGetComputeInstanceId`); -1 = not a MIG
  /// slice or unknown.
  std::int32_t mig_compute_instance_id = -1;
  /// MIG: the parent GPU's "GPU-..." UUID (`uuid` is then the instance's "MIG-..." UUID); empty = a whole
  /// GPU.
  std::string parent_uuid;
  /// The physical GPU's NVML index (dcgm-exporter's `gpu` label); -1 = the same as `index` (a whole GPU). A
  /// MIG instance has an `index` of its own (sources number instances after the whole GPUs) and the parent's
  /// index here. Use gpu_number().
  std::int32_t gpu_index = -1;
  /// MIG: the instance's share of the parent's SMs and of its memory slices (0-1, from NVML's instance
  /// profile: multiprocessorCount and memorySizeMB over the parent's); NaN = a whole GPU or unknown. Peak
  /// rates of an instance are the parent's times these shares (docs/design/sol-metrics.md "MIG").
  double mig_sm_share = std::numeric_limits<double>::quiet_NaN();
  double mig_memory_share = std::numeric_limits<double>::quiet_NaN();

  /// The physical GPU's index: gpu_index, or index for a whole GPU.
  [[nodiscard]] auto gpu_number() const -> std::uint32_t {
    return gpu_index < 0 ? index : static_cast<std::uint32_t>(gpu_index);
  }
  /// True for a MIG instance (a GPU-instance id or profile is known).
  [[nodiscard]] auto is_mig() const -> bool { return mig_instance_id >= 0 || !mig_profile.empty(); }
  /// Who runs on the GPU, Kubernetes-style "namespace/pod/container" (dcgm-exporter's `namespace`, `pod`,
  /// `container` labels, empty parts kept); empty = unknown.
  std::string attribution;
};

/// How every view, report and message names a device: "GPU 0" for a whole GPU, "GPU 0 · MIG 3g.40gb #1" for
/// a MIG instance (parent index, GPU-instance profile, GPU-instance id; "MIG #1" when the profile is unknown,
/// "MIG 3g.40gb" when the id is).
[[nodiscard]] auto device_label(const DeviceInfo& device) -> std::string;

}  // namespace solscope::core
