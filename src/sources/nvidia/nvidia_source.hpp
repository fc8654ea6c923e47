// NvidiaSource: the CounterSource for NVIDIA GPUs. Per device it picks the best source that works (CUPTI PM
// sampling, else NVML GPM on Hopper and newer, else classic NVML; docs/design/architecture.md
// section 3) and merges the NVML figures (clocks, power, temperature, memory, classic utilization) into every
// sample.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/device_info.hpp"
#include "core/raw_sample.hpp"
#include "core/result.hpp"
#include "sources/counter_source.hpp"
#include "sources/nvidia/detail/gpm_reader.hpp"
#include "sources/nvidia/detail/nvidia_source_plan.hpp"
#include "sources/nvidia/detail/pm_sampling.hpp"
#include "sources/nvidia/detail/profiling_permission.hpp"
#include "sources/nvidia/nvml_api.hpp"
#include "sources/nvidia/nvml_reader.hpp"

namespace solscope::nvidia {

/// What the NVIDIA source takes from its surroundings; tests inject fakes. Null functions get the defaults.
struct NvidiaSourceDeps {
  /// Loads the NVML table; default load_nvml().
  std::function<core::Result<NvmlApi>()> load_nvml;
  /// Makes the CUPTI PM sampler. Called at most once per start(), only after NVML has listed the devices and
  /// only when a device will try PM sampling (never by probe()). Null, or returning null: no PM sampling.
  std::function<std::unique_ptr<PmSampling>()> make_pm_sampling;
  /// Root of the procfs tree read by the permission pre-flight; "/" on a live system.
  std::filesystem::path procfs_root = "/";
  /// Effective user id; default geteuid().
  std::function<std::uint32_t()> euid;
  /// Host clock in Unix-epoch ns; default std::chrono::system_clock.
  std::function<std::int64_t()> now_ns;
};

/// One GPU as `solscope devices` shows it, found without sampling.
struct NvidiaDeviceProbe {
  core::DeviceInfo info;         ///< static facts (chip empty: only PM sampling names it)
  sources::DeviceStatus status;  ///< the source start() would try first; reason/hint for what it would skip
  bool pm_sampling_would_try = false;  ///< start() would try PM sampling (success is known only then)
  bool mig_enabled = false;
  nvml::Architecture architecture = 0;  ///< NVML_DEVICE_ARCH_* (9 = Hopper), 0 when unknown
  GpmSupportInfo gpm;                   ///< GPM support and why not
  NvmlCapabilities capabilities;        ///< which classic NVML queries answer
};

/// What probe() found.
struct NvidiaProbe {
  std::string driver_version;      ///< "565.57.01"
  ProfilingPermission permission;  ///< the pre-flight verdict
  std::vector<NvidiaDeviceProbe> devices;
};

/// CounterSource over NVIDIA GPUs (see the file comment). Not thread-safe: one thread drives it.
///
/// start() loads NVML first; without the driver it fails with no CUPTI call at all. Per selected device it
/// tries, best first: PM sampling (unless MIG is on or the pre-flight says "no"), GPM (Hopper and newer),
/// NVML only, and records the choice and the reasons in status(). poll() returns PM (or GPM) samples merged
/// with that device's latest NVML figures, NVML being read at most once per interval per device (10% slack
/// for timer jitter). NVML-only devices give one sample per interval spanning [previous sample end, now); GPM
/// devices at most one per interval and at least kGpmMinIntervalNs (100 ms) apart. A device reported lost (PM
/// sampler fault or NVML_ERROR_GPU_IS_LOST) gets status().lost and no more samples; the others continue.
class NvidiaSource final : public sources::CounterSource, public sources::ProcessLister {
 public:
  explicit NvidiaSource(NvidiaSourceDeps deps = {});
  ~NvidiaSource() override;
  NvidiaSource(const NvidiaSource&) = delete;
  auto operator=(const NvidiaSource&) -> NvidiaSource& = delete;

  /// The devices being sampled (after start(); kept after stop()); empty before start().
  [[nodiscard]] auto devices() const -> std::vector<core::DeviceInfo> override;

  /// Begins sampling. Errors: InvalidArgument (interval below 1 ms; a `devices` index that does not exist,
  /// naming it and the valid range), Unavailable "no NVIDIA driver found" (hint: install the driver;
  /// `solscope replay FILE` works without a GPU), Unavailable "nvmlInit failed: ...", NotFound "no NVIDIA GPU
  /// found", Unavailable when every selected device is lost, FailedPrecondition when already started.
  [[nodiscard]] auto start(const sources::SourceConfig& config) -> core::Result<void> override;

  /// Samples completed since the last call (see the class comment). Errors: FailedPrecondition when not
  /// started.
  [[nodiscard]] auto poll() -> core::Result<std::vector<core::RawSample>> override;

  /// Stops PM sampling, frees GPM buffers and shuts NVML down. Idempotent; statuses stay readable.
  void stop() override;

  /// How a device is sampled; SourceKind::None for an index that is not being sampled.
  [[nodiscard]] auto status(std::uint32_t device) const -> sources::DeviceStatus override;

  /// Driver, permission pre-flight and every device with the source start() would try, without sampling:
  /// loads NVML (its own session) and reads procfs, but makes no CUPTI call and starts no GPM sampling.
  /// Errors: as start() for the driver and NVML.
  [[nodiscard]] auto probe() const -> core::Result<NvidiaProbe>;

  /// Compute processes on a device being sampled (NvmlReader::processes; unknown memory becomes nullopt), the
  /// ProcessLister capability. Errors: FailedPrecondition when not started, InvalidArgument for a device not
  /// sampled, NvmlReader::processes' errors.
  [[nodiscard]] auto processes_on(std::uint32_t device)
      -> core::Result<std::vector<sources::DeviceProcess>> override;
  [[nodiscard]] auto process_lister() -> sources::ProcessLister* override { return this; }

 private:
  struct Active {
    core::DeviceInfo info;
    sources::DeviceStatus status;
    std::optional<GpmReader> gpm;
    core::RawSample nvml;  ///< latest NVML figures
    bool has_nvml = false;
    std::int64_t nvml_read_ns = 0;  ///< when `nvml` was read
    std::int64_t last_end_ns = 0;   ///< GPM and NVML-only: end of the last sample (start time at first)
    int gpm_failures = 0;           ///< GPM polls failed in a row
  };

  [[nodiscard]] auto open_nvml() const -> core::Result<NvmlReader>;
  auto start_device(std::uint32_t index, const ProfilingPermission& permission) -> Active;
  auto try_pm(Active& dev, PmChoice& choice) -> bool;
  void poll_pm(std::int64_t now_ns, std::vector<core::RawSample>& out);
  void poll_gpm(Active& dev, std::int64_t now_ns, std::vector<core::RawSample>& out);
  void poll_nvml_only(Active& dev, std::int64_t now_ns, std::vector<core::RawSample>& out);
  /// Reads NVML for the device unless it was read less than an interval ago; false when the device is lost.
  auto refresh_nvml(Active& dev, std::int64_t now_ns) -> bool;
  void mark_lost(Active& dev, std::string reason);
  auto find(std::uint32_t index) -> Active*;
  [[nodiscard]] auto find(std::uint32_t index) const -> const Active*;

  NvidiaSourceDeps deps_;
  std::optional<NvmlReader> reader_;
  std::unique_ptr<PmSampling> pm_;
  bool pm_factory_called_ = false;
  bool running_ = false;
  std::int64_t interval_ns_ = 0;
  core::SourceKind best_source_ = core::SourceKind::PmSampling;  ///< SourceConfig::best_source
  std::vector<Active> active_;                                   ///< sorted by NVML index
};

}  // namespace solscope::nvidia
