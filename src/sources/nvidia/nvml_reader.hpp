// NvmlReader: the classic NVML figures of every GPU (static facts into core::DeviceInfo, dynamic figures into
// a core::RawSample, running compute processes), with each query probed once per device and remembered.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/device_info.hpp"
#include "core/raw_sample.hpp"
#include "core/result.hpp"
#include "sources/nvidia/nvml_api.hpp"

namespace solscope::nvidia {

/// The NVML queries behind the dynamic figures, probed once per device (docs/design/style.md section 3).
enum class NvmlQuery : std::uint8_t {
  Utilization,  ///< nvmlDeviceGetUtilizationRates -> GpuUtil, MemCopyUtil
  SmClock,      ///< nvmlDeviceGetClockInfo(NVML_CLOCK_SM) -> SmClockMhz
  MemClock,     ///< nvmlDeviceGetClockInfo(NVML_CLOCK_MEM) -> MemClockMhz
  Power,        ///< nvmlDeviceGetPowerUsage -> PowerW
  PowerLimit,   ///< nvmlDeviceGetEnforcedPowerLimit -> PowerLimitW
  Temperature,  ///< nvmlDeviceGetTemperatureV, else nvmlDeviceGetTemperature -> TemperatureC
  Memory,  ///< nvmlDeviceGetMemoryInfo_v2, else nvmlDeviceGetMemoryInfo -> MemoryUsedBytes, MemoryTotalBytes
  Processes,           ///< nvmlDeviceGetComputeRunningProcesses_v3/_v2/plain -> processes()
  GraphicsProcesses,   ///< nvmlDeviceGetGraphicsRunningProcesses_v3/_v2 -> GpuProcess::graphics
  MpsProcesses,        ///< nvmlDeviceGetMPSComputeRunningProcesses_v3/_v2 -> GpuProcess::mps
  ProcessUtilization,  ///< nvmlDeviceGetProcessUtilization -> GpuProcess::sm_pct
  kCount,
};
inline constexpr std::size_t kNvmlQueryCount = static_cast<std::size_t>(NvmlQuery::kCount);

/// The figures NvmlReader::read() writes (NaN where NVML cannot give them); the NVIDIA source merges them
/// into PM and GPM samples.
inline constexpr std::array kNvmlMetrics{
    core::MetricId::GpuUtil,      core::MetricId::MemCopyUtil,     core::MetricId::SmClockMhz,
    core::MetricId::MemClockMhz,  core::MetricId::PowerW,          core::MetricId::PowerLimitW,
    core::MetricId::TemperatureC, core::MetricId::MemoryUsedBytes, core::MetricId::MemoryTotalBytes};

/// What to do about a GPU that stopped answering (NVML_ERROR_GPU_IS_LOST, or a PM sampler fault).
inline constexpr std::string_view kGpuLostHint =
    "check the kernel log (dmesg) for Xid errors; the GPU may need a reset (nvidia-smi -r) or the host a "
    "reboot";

/// The NVML function a query calls, e.g. "nvmlDeviceGetPowerUsage".
[[nodiscard]] auto to_string(NvmlQuery query) -> std::string_view;

/// What a probe found out about one query.
enum class QuerySupport : std::uint8_t {
  Unprobed,     ///< not called yet
  Supported,    ///< answered at least once
  Unsupported,  ///< missing from the library, NOT_SUPPORTED, NO_PERMISSION or a struct-version mismatch:
                ///< never called again
};

/// Per-device support of each NvmlQuery, indexed by NvmlQuery.
struct NvmlCapabilities {
  std::array<QuerySupport, kNvmlQueryCount> support{};
  std::array<nvml::Return, kNvmlQueryCount> failure{};  ///< the NVML code that made a query Unsupported

  [[nodiscard]] auto of(NvmlQuery q) const -> QuerySupport { return support[static_cast<std::size_t>(q)]; }
};

/// One process with a context on a GPU (nvml_processes.cpp says how the lists are merged).
struct GpuProcess {
  std::uint32_t pid = 0;
  /// Device memory the process uses in bytes; `kUnknownMemory` when NVML cannot say
  /// (NVML_VALUE_NOT_AVAILABLE).
  std::uint64_t used_memory_bytes = 0;
  /// SM utilization over the samples since the previous processes() call, percent of the device's SM time,
  /// 0-100 (process_sm_pct()); nullopt when NVML cannot report it on this device.
  std::optional<double> sm_pct;
  bool graphics = false;  ///< listed only by nvmlDeviceGetGraphicsRunningProcesses (no compute context)
  bool mps = false;       ///< listed by nvmlDeviceGetMPSComputeRunningProcesses: an MPS client
};
/// GpuProcess::used_memory_bytes when unknown.
inline constexpr std::uint64_t kUnknownMemory = nvml::kValueNotAvailable;

/// One successful nvmlInit: calls nvmlShutdown (when the table has it) exactly once, when destroyed or
/// assigned over, and keeps the NVML library loaded until then. Move-only; an empty or moved-from handle
/// calls nothing.
class NvmlSession {
 public:
  NvmlSession() = default;
  /// Takes over the nvmlInit that just succeeded through `api`.
  explicit NvmlSession(const NvmlApi& api) : shutdown_(api.shutdown), library_(api.library) {}
  NvmlSession(NvmlSession&& other) noexcept
      : shutdown_(std::exchange(other.shutdown_, nullptr)), library_(std::move(other.library_)) {}
  auto operator=(NvmlSession&& other) noexcept -> NvmlSession& {
    if (this != &other) {
      reset();
      shutdown_ = std::exchange(other.shutdown_, nullptr);
      library_ = std::move(other.library_);
    }
    return *this;
  }
  NvmlSession(const NvmlSession&) = delete;
  auto operator=(const NvmlSession&) -> NvmlSession& = delete;
  ~NvmlSession() { reset(); }

  /// nvmlShutdown now (once), then empty.
  void reset() noexcept {
    if (auto* shutdown = std::exchange(shutdown_, nullptr)) (void)shutdown();
    library_.reset();
  }

 private:
  nvml::Return (*shutdown_)() = nullptr;
  std::shared_ptr<const DynamicLibrary> library_;  ///< keeps nvmlShutdown's code loaded
};

/// NVML, initialized, with every device enumerated. Move-only (a moved-from reader is empty: no devices);
/// nvmlShutdown once, on destruction or when assigned over (NvmlSession). Not thread-safe.
///
/// open() calls nvmlInit, reads the driver version and each device's static facts (DeviceInfo) once. read()
/// probes each figure's query on its first call per device and skips the unsupported ones afterwards, with no
/// retry and no log. A device whose NVML call returns NVML_ERROR_GPU_IS_LOST (15) is marked lost for good:
/// its read() and processes() fail with Unavailable from then on.
class NvmlReader {
 public:
  /// Initializes NVML through `api` and enumerates the devices. Errors: Unavailable "nvmlInit failed: <NVML
  /// text>" (hint: check the driver with nvidia-smi), Unavailable "nvmlDeviceGetCount failed: <text>".
  [[nodiscard]] static auto open(NvmlApi api) -> core::Result<NvmlReader>;

  NvmlReader(NvmlReader&& other) noexcept;
  auto operator=(NvmlReader&& other) noexcept -> NvmlReader&;
  NvmlReader(const NvmlReader&) = delete;
  auto operator=(const NvmlReader&) -> NvmlReader& = delete;
  ~NvmlReader() = default;

  /// nvmlSystemGetDriverVersion, e.g. "565.57.01"; "" when NVML did not say.
  [[nodiscard]] auto driver_version() const -> const std::string& { return driver_version_; }
  /// The driver's major version (565 for "565.57.01"); 0 when unknown.
  [[nodiscard]] auto driver_major() const -> int { return driver_major_; }
  /// Whole GPUs NVML counts (indices 0 .. count-1).
  [[nodiscard]] auto device_count() const -> std::uint32_t { return physical_count_; }
  /// Whole GPUs and MIG devices: the MIG devices of MIG-enabled GPUs are numbered from device_count() on, GPU
  /// by GPU in NVML order, each GPU's in NVML's MIG device order (detail/mig_devices.hpp). Every index below
  /// this count is valid for the calls below.
  [[nodiscard]] auto all_device_count() const -> std::uint32_t {
    return static_cast<std::uint32_t>(devices_.size());
  }
  /// The indices of a whole GPU's MIG devices; empty when MIG is off or they could not be listed (mig_note).
  [[nodiscard]] auto mig_devices(std::uint32_t gpu) const -> std::vector<std::uint32_t>;
  /// Why a MIG-enabled GPU is not split into MIG devices ("" when it is, or when MIG is off).
  [[nodiscard]] auto mig_note(std::uint32_t gpu) const -> const std::string&;

  /// Static facts of a device, read at open(): index, UUID, name, PCI bus id, memory total, max SM and memory
  /// clocks, peak DRAM bandwidth (core/device_info.hpp formula from nvmlDeviceGetMemoryBusWidth and the max
  /// memory clock). `chip` and `sm_count` stay unknown for a whole GPU (NVML gives neither); a MIG device has
  /// the fields enumerate_mig_devices fills. `index` must be < all_device_count().
  [[nodiscard]] auto device_info(std::uint32_t index) const -> const core::DeviceInfo&;

  /// The device handle for other NVML users (GPM); null when NVML gave none. `index` < device_count().
  [[nodiscard]] auto handle(std::uint32_t index) const -> nvml::Device;
  /// nvmlDeviceGetArchitecture (NVML_DEVICE_ARCH_*), 0 when unknown.
  [[nodiscard]] auto architecture(std::uint32_t index) const -> nvml::Architecture;
  /// True when MIG mode is currently enabled (nvmlDeviceGetMigMode); false when off or unknown.
  [[nodiscard]] auto mig_enabled(std::uint32_t index) const -> bool;
  /// True once NVML said GPU_IS_LOST for the device (or gave no handle for it).
  [[nodiscard]] auto is_lost(std::uint32_t index) const -> bool;
  /// Why the device is lost ("" while it is not): a lowercase phrase naming the device.
  [[nodiscard]] auto lost_reason(std::uint32_t index) const -> const std::string&;
  /// Marks a device lost (another reader, e.g. GPM or PM sampling, saw it go).
  void mark_lost(std::uint32_t index, std::string reason);

  /// Reads the dynamic figures of a device into `sample` (only these are written; others are left as they
  /// are): GpuUtil, MemCopyUtil (%), SmClockMhz, MemClockMhz (MHz), PowerW, PowerLimitW (W from NVML's mW),
  /// TemperatureC, MemoryUsedBytes, MemoryTotalBytes (bytes). A figure NVML cannot give is NaN. Probes each
  /// query on the first call. Errors: Unavailable when the device is lost (now or before).
  [[nodiscard]] auto read(std::uint32_t index, core::RawSample& sample) -> core::Result<void>;

  /// Probes every query of the device once (a read() whose values are dropped) and returns what it found.
  [[nodiscard]] auto capabilities(std::uint32_t index) -> NvmlCapabilities;

  /// Processes with a context on the device, their device memory and SM share (nvml_processes.cpp): the
  /// compute list, then the MPS clients and the graphics-only processes not in it, and each one's SM % from
  /// the process utilization samples newer than the previous call's newest (kept per device). The graphics,
  /// MPS and utilization queries are optional: unsupported, they are probed once and their fields stay
  /// unknown (graphics/mps false, sm_pct nullopt). Errors: Unimplemented when NVML cannot list the compute
  /// processes on this device, Unavailable when the device is lost or the list kept growing.
  [[nodiscard]] auto processes(std::uint32_t index) -> core::Result<std::vector<GpuProcess>>;

  /// The function table in use.
  [[nodiscard]] auto api() const -> const NvmlApi& { return api_; }

 private:
  struct DeviceState {
    nvml::Device handle = nullptr;
    core::DeviceInfo info;
    nvml::Architecture arch = 0;
    bool mig_enabled = false;
    bool lost = false;
    std::string lost_reason;
    NvmlCapabilities caps;
    bool legacy_temperature = false;  ///< nvmlDeviceGetTemperatureV failed: use the unversioned call
    bool legacy_memory = false;       ///< nvmlDeviceGetMemoryInfo_v2 failed: use the v1 call
    std::string mig_note;             ///< MigLayout::note of a MIG-enabled GPU
    /// The newest process utilization sample's timeStamp seen (us): the next call's lastSeenTimeStamp.
    unsigned long long last_seen_util_us = 0;
  };

  explicit NvmlReader(NvmlApi api) : api_(std::move(api)) {}
  void read_static(std::uint32_t index, DeviceState& dev);
  /// Appends the MIG devices of a MIG-enabled whole GPU (detail/mig_devices.hpp) or notes why there are none.
  void add_mig_devices(std::uint32_t gpu);
  /// Books the result of one query call: true on success; marks the query unsupported or the device lost.
  auto note(DeviceState& dev, NvmlQuery query, nvml::Return rc) -> bool;
  /// Whether a query may be called now (device not lost, query not unsupported).
  [[nodiscard]] static auto callable(const DeviceState& dev, NvmlQuery query) -> bool;
  void read_clocks_power(DeviceState& dev, core::RawSample& sample);
  void read_temperature(DeviceState& dev, core::RawSample& sample);
  void read_memory(DeviceState& dev, core::RawSample& sample);
  auto lost_error(std::uint32_t index) const -> core::Unexpected<core::Error>;
  /// "device 3 (GPU-...)": how messages name a device.
  [[nodiscard]] auto name_of(std::uint32_t index) const -> std::string;
  auto list_processes(DeviceState& dev, std::vector<GpuProcess>& out) -> nvml::Return;
  /// Adds the MPS clients and graphics-only processes to the compute list (optional queries).
  void merge_optional_lists(DeviceState& dev, std::vector<GpuProcess>& out);
  /// Sets each process's sm_pct from the utilization samples since the last call (optional query).
  void read_process_utilization(DeviceState& dev, std::vector<GpuProcess>& out);

  NvmlApi api_;
  std::string driver_version_;
  int driver_major_ = 0;
  std::vector<DeviceState> devices_;  ///< whole GPUs, then MIG devices
  std::uint32_t physical_count_ = 0;  ///< whole GPUs
  NvmlSession session_;  ///< last member: NVML is shut down before anything else of the reader goes
};

/// SM % per pid over one batch of NVML process utilization samples: the pid's smUtil summed over the batch
/// divided by the number of distinct sample periods (distinct timeStamps) in the batch. NVML returns a sample
/// only for a process with non-zero utilization in a period (NVML API reference,
/// nvmlDeviceGetProcessUtilization), so a period without the pid's sample counts as 0 for it: the result is
/// the mean over the window's periods, and two time-sliced processes' values keep the ratio of their SM time.
/// The max would overstate a process busy in one period only, and shares could sum past 100. Empty batch:
/// empty map.
[[nodiscard]] auto process_sm_pct(std::span<const nvml::ProcessUtilizationSample> samples)
    -> std::map<std::uint32_t, double>;

/// The major number of a driver version string: 565 for "565.57.01"; 0 when it does not start with digits.
[[nodiscard]] auto driver_major_version(std::string_view version) -> int;

/// Peak DRAM bandwidth in bytes/s from the memory bus width (bits) and max memory clock (MHz): width / 8 x
/// clock x 1e6 x 2 (two transfers per clock; core/device_info.hpp). NaN when either is 0 or unknown.
[[nodiscard]] auto dram_peak_bytes_per_s(unsigned int bus_width_bits, double max_mem_clock_mhz) -> double;

}  // namespace solscope::nvidia
