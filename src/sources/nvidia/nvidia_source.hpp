// NvidiaSource: the CounterSource for NVIDIA GPUs. Per device it picks the best source that works (CUPTI PM
// sampling, else NVML GPM on Hopper and newer, else classic NVML; docs/design/architecture.md
// section 3) and merges the NVML figures (clocks, power, temperature, memory, classic utilization) into every
// sample.
//
// MIG: a GPU with MIG mode on is sampled as one device per MIG device (compute instance), never as a whole.
// Numbering: whole GPUs keep their NVML index (0 .. N-1, N = nvmlDeviceGetCount); the MIG devices of all
// MIG-enabled GPUs are numbered N, N+1, ... GPU by GPU in NVML order, and within a GPU in NVML's MIG device
// index order (NvmlReader::all_device_count). DeviceInfo::gpu_index is then the parent's NVML index, uuid
// the "MIG-..." UUID and parent_uuid the GPU's. `--devices` (SourceConfig::devices) keeps naming whole GPUs
// by NVML index: a MIG-enabled GPU brings all its MIG devices. Per MIG device: GPM of its GPU instance
// (nvmlGpmMigSampleGet) on Hopper and newer, else NVML only with SOL n/a ("no per-instance counters on Ampere
// MIG: ..."); never PM sampling (CUPTI answers CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED). Its NVML figures:
// memory from the MIG device handle; SM and memory clocks, power, power limit and temperature are the whole
// GPU's (read on the parent: kMigParentMetrics); classic utilization is not reported under MIG (NVML).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
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
  /// A MIG-enabled GPU: how many MIG devices follow it in NvidiaProbe::devices (each sampled on its own; the
  /// GPU itself is then not sampled), and why there are none ("" when there are, or MIG is off).
  std::uint32_t mig_device_count = 0;
  std::string mig_note;
};

/// What probe() found.
struct NvidiaProbe {
  std::string driver_version;      ///< "565.57.01"
  ProfilingPermission permission;  ///< the pre-flight verdict
  /// Every whole GPU in NVML order, each MIG-enabled one followed by its MIG devices (info.is_mig()).
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
///
/// CounterYield (nvidia_source_yield.cpp): a device PM-sampled at start can give its counters back to a
/// profiler. Paused, it runs on GPM where the GPU has it (Hopper and newer: GPM coexists with profilers) and
/// on NVML only elsewhere, every sample flagged kSamplePmPaused with the reason; resumed, PM sampling is
/// opened again. Counters that CUPTI says another profiler holds (at start, in a poll, or on resume) pause
/// the device with kCountersBusy instead of losing it, and take_counters_busy() reports them.
class NvidiaSource final : public sources::CounterSource,
                           public sources::ProcessLister,
                           public sources::CounterYield {
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

  /// Processes on a device being sampled (NvmlReader::processes: compute, MPS clients, graphics-only, with
  /// their SM share; unknown memory becomes nullopt), the ProcessLister capability. Errors:
  /// FailedPrecondition when not started, InvalidArgument for a device not sampled, NvmlReader::processes'
  /// errors.
  [[nodiscard]] auto processes_on(std::uint32_t device)
      -> core::Result<std::vector<sources::DeviceProcess>> override;
  [[nodiscard]] auto process_lister() -> sources::ProcessLister* override { return this; }

  /// True for a device that holds, or could take again, CUPTI's counters: PM-sampled at start, or found with
  /// its counters busy at start (then paused with kCountersBusy). False for a device on GPM or NVML from the
  /// start for any other reason (MIG, no permission, no counter set, best_source), for a lost device and for
  /// an index not sampled.
  [[nodiscard]] auto yields(std::uint32_t device) const -> bool override;
  /// See CounterYield::set_pm_pause. Pausing closes the device's PM session at once (PmSampling::close),
  /// opens GPM when the GPU supports it (else NVML only), and from the next poll on flags each of its samples
  /// kSamplePmPaused with RawSample::pm_pause = `reason`; status().reason becomes "PM sampling paused
  /// (<reason>): <why>". Resuming opens PM sampling again (the flag clears on success). On a device that does
  /// not yield (yields() false) or is lost, both are a no-op that returns success: it holds no counters, and
  /// its samples stay unflagged. Errors: FailedPrecondition when not started; InvalidArgument for a device
  /// not sampled; on resume, PmSampling::open's errors: Unavailable (counters held by another profiler: the
  /// device stays paused with kCountersBusy), others (the device stays on its fallback, not paused, with
  /// pm_open_failure's reason).
  [[nodiscard]] auto set_pm_pause(std::uint32_t device, core::PmPauseReason reason)
      -> core::Result<void> override;
  /// See CounterYield::take_counters_busy; also lists the devices found busy by start(). Each entry once.
  [[nodiscard]] auto take_counters_busy() -> std::vector<std::pair<std::uint32_t, std::string>> override;
  [[nodiscard]] auto counter_yield() -> sources::CounterYield* override { return this; }

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
    bool pm_capable = false;        ///< yields(): PM-sampled at start, or its counters were busy at start
    core::PmPauseReason pm_pause = core::PmPauseReason::kNone;  ///< why PM sampling is paused now
    std::string gpm_note;  ///< on a paused NVML-only device: why not GPM ("" otherwise)
  };

  /// The whole GPU's NVML figures that its MIG devices share, read once per poll (nvidia_source_mig.cpp).
  struct SharedFigures {
    core::RawSample figures;
    std::int64_t read_ns = 0;
    bool valid = false;
  };

  [[nodiscard]] auto open_nvml() const -> core::Result<NvmlReader>;
  /// Starts a selected whole GPU: its MIG devices when it has any, else the GPU (nvidia_source_mig.cpp).
  void start_selected(std::uint32_t gpu, const ProfilingPermission& permission);
  auto start_mig_device(std::uint32_t index) -> Active;
  /// NVML figures of a device; for a MIG device its own plus the parent's kMigParentMetrics.
  auto read_figures(std::uint32_t index, std::int64_t now_ns, core::RawSample& figures) -> core::Result<void>;
  auto start_device(std::uint32_t index, const ProfilingPermission& permission) -> Active;
  auto try_pm(Active& dev, PmChoice& choice) -> bool;
  void poll_pm(std::int64_t now_ns, std::vector<core::RawSample>& out);
  void poll_gpm(Active& dev, std::int64_t now_ns, std::vector<core::RawSample>& out);
  void poll_nvml_only(Active& dev, std::int64_t now_ns, std::vector<core::RawSample>& out);
  /// Reads NVML for the device unless it was read less than an interval ago; false when the device is lost.
  auto refresh_nvml(Active& dev, std::int64_t now_ns) -> bool;
  void mark_lost(Active& dev, std::string reason);
  // CounterYield helpers (nvidia_source_yield.cpp).
  /// `dev`'s PM open failed with `error`: when it says the counters are busy, the device yields from now on,
  /// paused with kCountersBusy, and is reported by take_counters_busy().
  void note_pm_open_failure(Active& dev, const core::Error& error);
  /// After start_device(): a device paused at start gets the paused status text (its fallback is open).
  void label_start_pause(Active& dev);
  /// Moves a PM-sampled device to GPM (when the GPU has it) or NVML only, from `now_ns` on.
  void open_fallback(Active& dev, std::int64_t now_ns);
  /// Sets `dev`'s pause reason and its status text and hint; `why` explains the pause.
  void set_paused(Active& dev, core::PmPauseReason reason, std::string why);
  /// The PM session of a device ended at `now_ns` because another profiler took its counters (PmPoll::busy):
  /// its fallback opens, it is paused with kCountersBusy and CUPTI's `message`, and take_counters_busy() says
  /// so.
  void on_counters_taken(std::uint32_t index, std::string message, std::int64_t now_ns);
  /// Opens PM sampling of a yielding device again (set_pm_pause with kNone).
  auto resume_pm(Active& dev) -> core::Result<void>;
  /// Flags every sample of a paused device with kSamplePmPaused and its reason.
  void flag_paused(std::vector<core::RawSample>& samples) const;
  auto find(std::uint32_t index) -> Active*;
  [[nodiscard]] auto find(std::uint32_t index) const -> const Active*;

  NvidiaSourceDeps deps_;
  std::optional<NvmlReader> reader_;
  std::unique_ptr<PmSampling> pm_;
  bool pm_factory_called_ = false;
  bool running_ = false;
  std::int64_t interval_ns_ = 0;
  core::SourceKind best_source_ = core::SourceKind::PmSampling;  ///< SourceConfig::best_source
  /// in selection order; a MIG-enabled GPU's MIG devices where the GPU would be
  std::vector<Active> active_;
  std::map<std::uint32_t, SharedFigures> shared_nvml_;  ///< by parent NVML index

  /// Devices whose counters CUPTI said are busy (index, CUPTI's message), for take_counters_busy().
  std::vector<std::pair<std::uint32_t, std::string>> counters_busy_;
};

}  // namespace solscope::nvidia
