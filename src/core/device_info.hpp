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
  /// Who runs on the GPU, Kubernetes-style "namespace/pod/container" (dcgm-exporter's `namespace`, `pod`,
  /// `container` labels, empty parts kept); empty = unknown.
  std::string attribution;
};

}  // namespace solscope::core
