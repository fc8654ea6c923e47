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
  /// GPM: cumulative value per nvmlGpmMetricId_t; nvmlGpmMetricsGet answers sample2 - sample1.
  std::map<unsigned int, double> gpm_counters;
  /// GPM metric ids whose per-metric status is NVML_ERROR_NOT_SUPPORTED.
  std::set<unsigned int> gpm_unsupported_metrics;
};

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
  /// GPM sample buffers allocated and not freed.
  [[nodiscard]] auto live_gpm_samples() const -> std::size_t;
  /// The metric ids of the last nvmlGpmMetricsGet request.
  [[nodiscard]] auto last_gpm_request() const -> const std::vector<unsigned int>& {
    return last_gpm_request_;
  }

  // Used by the fake functions.
  void count(std::string_view function, std::optional<std::uint32_t> gpu);
  std::set<void*> gpm_samples_;
  std::vector<unsigned int> last_gpm_request_;

 private:
  std::map<std::string, int, std::less<>> calls_;
  std::map<std::string, int, std::less<>> device_calls_;  ///< key "<function>#<gpu>"
};

/// The device handle the fake gives for a GPU index.
[[nodiscard]] auto fake_handle(std::uint32_t gpu) -> nvml::Device;

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
