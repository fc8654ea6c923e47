// FakeNvml: a synthetic NVML behind the real NvmlApi table (resolve_nvml over a fake symbol table), so that
// the NVML reader, GPM reader and NVIDIA source run without a GPU. Every figure here is synthetic, never a
// measurement. Also FakeProcfsTree, a temporary procfs root for the profiling-permission pre-flight.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sources/nvidia/nvml_api.hpp"

namespace solscope::nvidia::testing {

/// One MIG device (a compute instance) of a FakeGpu, as NVML's MIG API shows it. Its handle answers
/// nvmlDeviceGetName ("<GPU name> MIG <profile>"), nvmlDeviceGetUUID (`uuid`), nvmlDeviceGetGpuInstanceId,
/// nvmlDeviceGetComputeInstanceId, nvmlDeviceGetAttributes_v2, nvmlDeviceIsMigDeviceHandle,
/// nvmlDeviceGetDeviceHandleFromMigDeviceHandle, the memory queries and the process lists (per instance, as
/// nvml.h documents for MIG device handles). Every other call on it answers NVML_ERROR_NOT_SUPPORTED:
/// utilization rates (nvml.h: "On MIG-enabled GPUs, querying device utilization rates is not currently
/// supported"), and clocks, power, temperature, bus width, architecture, GPM support, for which nvml.h
/// documents no per-instance answer (nvidia-smi shows them per GPU only; solscope reads them on the parent).
struct FakeMigDevice {
  std::string uuid;     ///< "MIG-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (the format of R470 and newer drivers)
  std::string profile;  ///< GPU-instance profile in the name, e.g. "3g.40gb"
  unsigned int gpu_instance_id = 0;
  unsigned int compute_instance_id = 0;
  unsigned int sm_count = 0;                 ///< multiprocessorCount
  unsigned int gpu_instance_slices = 0;      ///< gpuInstanceSliceCount
  unsigned int compute_instance_slices = 0;  ///< computeInstanceSliceCount
  unsigned long long memory_mib = 0;         ///< memorySizeMB
  unsigned long long memory_used_bytes = 0;
  std::vector<nvml::ProcessInfo> processes;
  /// GPM of the GPU instance (nvmlGpmMigSampleGet): cumulative value per nvmlGpmMetricId_t.
  std::map<unsigned int, double> gpm_counters;
};

/// One GPU-instance profile a MIG-capable FakeGpu answers through nvmlDeviceGetGpuInstanceProfileInfoV.
struct FakeGiProfile {
  unsigned int profile = 0;  ///< NVML_GPU_INSTANCE_PROFILE_* value asked for
  unsigned int id = 0;       ///< profile id (nvidia-smi mig -lgip "ID")
  std::string name;          ///< "MIG 3g.40gb"
  unsigned int slices = 0;
  unsigned int instances = 0;
  unsigned int sm_count = 0;
  unsigned long long memory_mib = 0;
};

/// One synthetic GPU. Defaults describe an H100-SXM-like board (synthetic values chosen to resemble its data
/// sheet).
struct FakeGpu {
  std::string name = "Synthetic H100-like GPU";
  std::string uuid = "GPU-00000000-0000-0000-0000-000000000000";
  std::string pci_bus_id = "00000000:17:00.0";
  nvml::Architecture arch = nvml::kArchHopper;
  bool mig_enabled = false;
  bool gpm_supported = true;
  unsigned int util_gpu_pct = 0;
  unsigned int util_mem_pct = 0;
  unsigned int sm_clock_mhz = 0;
  unsigned int mem_clock_mhz = 0;
  unsigned int max_sm_clock_mhz = 1980;
  unsigned int max_mem_clock_mhz = 2619;
  unsigned int bus_width_bits = 5120;
  unsigned int power_mw = 0;
  unsigned int power_limit_mw = 700000;
  unsigned int temperature_c = 0;
  unsigned long long memory_total_bytes = 85'520'809'984ULL;
  unsigned long long memory_used_bytes = 0;
  /// NVML functions (by exported name) that answer NVML_ERROR_NOT_SUPPORTED on this GPU.
  std::set<std::string> unsupported;
  /// Every call about this GPU answers NVML_ERROR_GPU_IS_LOST.
  bool lost = false;
  /// Running compute processes.
  std::vector<nvml::ProcessInfo> processes;
  /// Processes that start right after the first count-only process query (exercises the retry).
  std::vector<nvml::ProcessInfo> processes_started_after_count;
  /// nvmlDeviceGetGraphicsRunningProcesses_v3's and nvmlDeviceGetMPSComputeRunningProcesses_v3's lists (a MIG
  /// device handle answers both with an empty list).
  std::vector<nvml::ProcessInfo> graphics_processes;
  std::vector<nvml::ProcessInfo> mps_processes;
  /// The driver's process utilization samples; nvmlDeviceGetProcessUtilization answers those with a timeStamp
  /// above its lastSeenTimeStamp, NVML_ERROR_NOT_FOUND when there is none.
  std::vector<nvml::ProcessUtilizationSample> utilization_samples;
  /// The lastSeenTimeStamp of each nvmlDeviceGetProcessUtilization call, in call order.
  std::vector<unsigned long long> utilization_since;
  /// GPM: cumulative value per nvmlGpmMetricId_t; nvmlGpmMetricsGet answers sample2 - sample1.
  std::map<unsigned int, double> gpm_counters;
  /// GPM metric ids whose per-metric status is NVML_ERROR_NOT_SUPPORTED.
  std::set<unsigned int> gpm_unsupported_metrics;
  /// MIG: the MIG devices at MIG device index 0, 1, ... (answered only while mig_enabled), the GPU-instance
  /// profiles, and nvmlDeviceGetMaxMigDeviceCount's answer while MIG is on (0 while off, as nvml.h says).
  std::vector<FakeMigDevice> mig_devices;
  std::vector<FakeGiProfile> gi_profiles;
  unsigned int max_mig_devices = 7;
};

/// An A100-SXM4-80GB-like GPU in MIG mode as 3g.40gb (GI 1) + 2 x 2g.20gb (GI 3, 4), compute instance 0 each.
/// Profiles as `nvidia-smi mig -lgip` prints them for the A100-SXM4-80GB in NVIDIA's MIG user guide (1g.10gb
/// 14 SMs 9.50 GiB, 2g.20gb 28 SMs 19.50 GiB, 3g.40gb 42 SMs 39.25 GiB, 4g.40gb 56 SMs, 7g.80gb 98 SMs 79.00
/// GiB); GI ids, UUIDs, clocks and memory use are synthetic.
[[nodiscard]] auto a100_80gb_mig_gpu() -> FakeGpu;
/// An H100-80GB-like GPU in MIG mode as 7 x 1g.10gb (GI 7 .. 13), compute instance 0 each. Profiles as
/// `nvidia-smi mig -lgip` prints them for an H100 80GB (1g.10gb 16 SMs 9.75 GiB, 7g.80gb 132 SMs 79.25 GiB;
/// the MIG user guide's H100 table and J. Barrow's "Nvidia MIG" field notes); GI ids and UUIDs synthetic.
[[nodiscard]] auto h100_80gb_mig_gpu() -> FakeGpu;

/// The synthetic NVML. One instance at a time is current (set by the constructor); its function table reaches
/// it through a global. Not thread-safe.
class FakeNvml {
 public:
  FakeNvml();
  ~FakeNvml();
  FakeNvml(const FakeNvml&) = delete;
  auto operator=(const FakeNvml&) -> FakeNvml& = delete;

  std::vector<FakeGpu> gpus;
  nvml::Return init_result = nvml::kSuccess;  ///< what nvmlInit_v2 answers
  std::string driver_version = "565.57.01";
  std::set<std::string> missing;  ///< exported names the fake library lacks

  /// The symbol table as dlsym would see it (nullptr for names in `missing` or unknown).
  [[nodiscard]] auto lookup(const char* name) const -> void*;
  /// resolve_nvml() over lookup(); a test failure is recorded when it fails.
  [[nodiscard]] auto api() const -> NvmlApi;

  /// Calls of an exported function, in all or for one GPU.
  [[nodiscard]] auto calls(std::string_view function) const -> int;
  [[nodiscard]] auto calls(std::string_view function, std::uint32_t gpu) const -> int;
  /// Calls of an exported function on one MIG device handle.
  [[nodiscard]] auto mig_calls(std::string_view function, std::uint32_t gpu, std::uint32_t mig) const -> int;
  /// GPM sample buffers allocated and not freed.
  [[nodiscard]] auto live_gpm_samples() const -> std::size_t;
  /// The metric ids of the last nvmlGpmMetricsGet request.
  [[nodiscard]] auto last_gpm_request() const -> const std::vector<unsigned int>& {
    return last_gpm_request_;
  }

  // Used by the fake functions.
  void count(std::string_view function, std::optional<std::uint32_t> gpu);
  void count_mig(std::string_view function, std::uint32_t gpu, std::uint32_t mig);
  std::set<void*> gpm_samples_;
  std::vector<unsigned int> last_gpm_request_;

 private:
  std::map<std::string, int, std::less<>> calls_;
  std::map<std::string, int, std::less<>> device_calls_;  ///< key "<function>#<gpu>"
};

/// The device handle the fake gives for a GPU index.
[[nodiscard]] auto fake_handle(std::uint32_t gpu) -> nvml::Device;
/// The MIG device handle the fake gives for a GPU's MIG device index.
[[nodiscard]] auto fake_mig_handle(std::uint32_t gpu, std::uint32_t mig) -> nvml::Device;

/// A temporary directory laid out like a procfs root: <root>/proc/driver/nvidia/params and
/// <root>/proc/self/status, each written only when given. Removed on destruction.
class FakeProcfsTree {
 public:
  FakeProcfsTree(const std::optional<std::string>& nvidia_params,
                 const std::optional<std::string>& self_status);
  ~FakeProcfsTree();
  FakeProcfsTree(const FakeProcfsTree&) = delete;
  auto operator=(const FakeProcfsTree&) -> FakeProcfsTree& = delete;

  [[nodiscard]] auto root() const -> const std::filesystem::path& { return root_; }

 private:
  std::filesystem::path root_;
};

/// A /proc/self/status text with the given CapEff mask (other lines as Linux prints them, values synthetic).
[[nodiscard]] auto status_with_cap_eff(std::uint64_t cap_eff) -> std::string;

/// A /proc/driver/nvidia/params text with `RmProfilingAdminOnly: <admin_only>` among other lines.
[[nodiscard]] auto nvidia_params(int admin_only) -> std::string;

}  // namespace solscope::nvidia::testing
