// LiveState: what every viewer of a running solscope sees (terminal view, HTTP server): per GPU its static
// facts, where its figures come from, its processes, the latest sample and window, a history of per-second
// windows, and busy-time counters. Fed by the engine's thread, read by any number of viewer threads.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/device_info.hpp"
#include "core/iteration.hpp"
#include "core/pm_yield.hpp"
#include "core/sol_sample.hpp"
#include "core/units.hpp"
#include "core/window.hpp"
#include "core/workload.hpp"

namespace solscope::core {

/// One process holding a context on a GPU (NVML's process list, completed from procfs).
struct GpuProcess {
  std::int32_t pid = 0;
  std::string user;                    ///< owner's user name (or numeric uid); empty when unknown
  std::uint64_t gpu_memory_bytes = 0;  ///< GPU memory it uses; 0 when unknown
  std::string command;                 ///< command line, arguments separated by spaces
  std::string container_id;   ///< from /proc/PID/cgroup (Docker, containerd, CRI-O, Podman); or empty
  WorkloadIdentity workload;  ///< its pod, namespace, container, Slurm job (core/workload.hpp); empty unknown
  WorkloadOrigin origin = WorkloadOrigin::kNone;  ///< where `workload` came from
  std::optional<double> sm_pct;  ///< NVML process utilization (SM %) over the last window; nullopt unknown
  bool mps = false;              ///< an MPS client

  /// Field-wise equality (LiveState::set_processes skips an unchanged list).
  friend auto operator==(const GpuProcess&, const GpuProcess&) -> bool = default;
};

/// What is known about one GPU besides its samples.
struct DeviceState {
  DeviceInfo info;
  SourceKind source = SourceKind::None;  ///< where its figures come from
  std::string source_note;  ///< why SOL is n/a or coarser, and the fix (DeviceStatus reason + hint); or empty
  std::string workload_note;  ///< the workload on it and its attainable SOL, or why unknown; or empty
  bool lost = false;          ///< stopped answering (fell off the bus, driver reset)
  std::vector<GpuProcess> processes;
  GpuWorkloads workloads;  ///< who the GPU's work belongs to (attribute_gpu over `processes`)
};

/// Seconds of busy time accumulated over every sample seen, so that a monitoring system can take the rate of
/// any of them over any interval and get the exact duration-weighted mean utilization of that interval
/// (docs/design/architecture.md section 6). Each entry is sum(pct / 100 x sample seconds) over samples where
/// the figure is known; `*_known_seconds` is the sum of sample seconds where it is known (the denominator
/// when the figure is missing for part of the time). All values in seconds, >= 0, monotonically
/// non-decreasing.
struct BusyCounters {
  double sampled_seconds = 0.0;  ///< total duration of every sample
  double compute_sol_seconds = 0.0;
  double compute_sol_known_seconds = 0.0;
  double memory_sol_seconds = 0.0;
  double memory_sol_known_seconds = 0.0;
  std::array<double, kPipeCount> pipe_seconds{};
  std::array<double, kPipeCount> pipe_known_seconds{};
  std::array<double, kMemPathCount> path_seconds{};
  std::array<double, kMemPathCount> path_known_seconds{};
  double sm_active_seconds = 0.0;
  double sm_active_known_seconds = 0.0;
  double gpu_util_seconds = 0.0;  ///< classic utilization (nvidia-smi)
  double gpu_util_known_seconds = 0.0;
  double dram_bytes = 0.0;  ///< bytes moved to/from DRAM (dram_bytes_per_s x seconds)
  std::uint64_t samples = 0;
  std::uint64_t gaps = 0;  ///< samples flagged kSampleGapBefore (data lost before them)
  std::array<std::uint64_t, kBoundCount> bound_samples{};  ///< per Bound value, samples classified so
  /// Per PmPauseReason, seconds of samples taken while PM sampling was paused for that reason (the kNone
  /// entry stays 0): rate() is the fraction of time the GPU yielded its counters.
  std::array<double, kPmPauseReasonCount> pm_paused_seconds{};
};

/// One point of a history chart: a window's figures (NaN = unknown).
struct HistoryPoint {
  std::int64_t t_start_ns = 0;
  std::int64_t t_end_ns = 0;
  double compute_sol_pct = kUnknown;
  double memory_sol_pct = kUnknown;
  double gpu_util_pct = kUnknown;
  double attainable_compute_sol_pct = kUnknown;
  double attainable_memory_sol_pct = kUnknown;
};

/// A copy of one device's state for a viewer.
struct DeviceSnapshot {
  DeviceState state;
  std::optional<SolSample> latest;         ///< the newest sample, as derived
  std::optional<SolSample> latest_window;  ///< the newest complete window (see LiveState), else the open one
  BusyCounters counters;
  WorkloadCounters workload_counters;  ///< GPU-seconds per workload and bound class since start
  IterationEstimate iteration;  ///< the training iteration found in its recent samples (core/iteration.hpp)
};

/// A device's newest complete window and its number: the count of windows completed by every device of the
/// LiveState when it completed (1 for the first), so that numbers only grow, across clear_samples() and
/// set_devices() too.
struct ClosedWindow {
  std::uint64_t number = 0;
  SolSample window;  ///< WindowAccumulator::result(): duration-weighted means, bound classified from them
};

/// Sizes of a LiveState.
struct LiveStateOptions {
  std::int64_t window_ns = kNsPerS;             ///< history resolution and "latest window" length; > 0
  std::int64_t history_ns = 3'600'000'000'000;  ///< how far back windows are kept (1 h)
};

/// Thread-safe store of the live figures. Samples are aggregated (core::WindowAccumulator) into windows
/// [k x window_ns, (k+1) x window_ns) of the sample clock, keyed by the sample's midpoint; a window is
/// complete once a sample of a later window of the same device arrives. At most history_ns / window_ns
/// complete windows are kept per device (the oldest are dropped). All methods may be called from any thread.
class LiveState {
 public:
  explicit LiveState(LiveStateOptions options = {});

  /// Replaces the device list (at start, or when attaching to another source). Keeps nothing of before.
  void set_devices(std::vector<DeviceState> devices);
  /// Updates one device's mutable facts; unknown devices and unchanged values are ignored (no version bump).
  void set_processes(std::uint32_t device, std::vector<GpuProcess> processes);
  /// Replaces a device's source note (DeviceStatus reason + hint, as set_devices() took it): a source whose
  /// status changed while it runs (a dcgm-exporter that stopped answering). Unknown devices are ignored.
  void set_source_note(std::uint32_t device, std::string note);
  void set_workload_note(std::uint32_t device, std::string note);
  /// Replaces a device's workloads; every later sample's seconds count for them (WorkloadCounters::add).
  void set_workloads(std::uint32_t device, GpuWorkloads workloads);
  void set_lost(std::uint32_t device, bool lost);
  /// Takes a device's training iteration from elsewhere (a daemon's estimate, read back by a view attached
  /// to it): its snapshots carry `estimate` instead of one of its own samples, which then feed no estimate,
  /// until set_devices() or clear_samples(). Unknown devices are ignored.
  void set_iteration(std::uint32_t device, const IterationEstimate& estimate);

  /// Forgets every sample, window and counter but keeps the devices (e.g. after seeking in a replay).
  void clear_samples();

  /// Adds one derived sample (engine thread). A sample of a device not in the list adds the device with only
  /// its index known.
  void add(const SolSample& sample);

  /// Every device in index order.
  [[nodiscard]] auto snapshot() const -> std::vector<DeviceSnapshot>;
  /// One device; nullopt when unknown.
  [[nodiscard]] auto snapshot(std::uint32_t device) const -> std::optional<DeviceSnapshot>;
  [[nodiscard]] auto devices() const -> std::vector<DeviceState>;

  /// Complete windows of `device` (plus the open one when `include_open`) that end after `since_ns`, merged
  /// `merge` at a time (merge >= 1: windows [k x merge x window_ns, ...) aggregated again), oldest first; at
  /// most `max_count` of them (the oldest), so that a paged answer copies only what it sends.
  [[nodiscard]] auto windows(std::uint32_t device, std::int64_t since_ns, std::int64_t merge = 1,
                             bool include_open = false,
                             std::size_t max_count = std::numeric_limits<std::size_t>::max()) const
      -> std::vector<SolSample>;
  /// The same as chart points, cheaper: one HistoryPoint per merged window.
  [[nodiscard]] auto history(std::uint32_t device, std::int64_t since_ns, std::int64_t merge = 1) const
      -> std::vector<HistoryPoint>;

  /// The newest complete window of `device` when its number is above `after` (one the caller has not seen
  /// yet); nullopt when there is none, or the device is unknown. A publisher that asks after every add() with
  /// the last number it got sees every window once, as it completes (one add() completes at most one window
  /// per device).
  [[nodiscard]] auto newest_closed_window(std::uint32_t device, std::uint64_t after) const
      -> std::optional<ClosedWindow>;

  /// The newest sample end over all devices (the "now" of the sample clock); 0 before any sample.
  [[nodiscard]] auto newest_ns() const -> std::int64_t;
  /// Increases with every change; lets a viewer skip redrawing when nothing changed.
  [[nodiscard]] auto version() const -> std::uint64_t;
  [[nodiscard]] auto options() const -> const LiveStateOptions& { return options_; }

 private:
  struct Device {
    DeviceState state;
    std::optional<SolSample> latest;
    std::int64_t open_index = 0;  ///< window index of `open`
    WindowAccumulator open;
    std::deque<SolSample> complete;          ///< oldest first
    std::uint64_t newest_closed_number = 0;  ///< ClosedWindow::number of complete.back(); 0 when none
    BusyCounters counters;
    WorkloadCounters workload_counters;
    WorkloadCounters::Parts workload_parts;  ///< WorkloadCounters::parts_of(state.workloads), per sample
    IterationTracker iteration;
    std::optional<IterationEstimate> iteration_from_elsewhere;  ///< set_iteration()'s, when given
  };
  auto device_for(std::uint32_t index) -> Device&;
  [[nodiscard]] static auto snapshot_of(const Device& d) -> DeviceSnapshot;  ///< caller holds mutex_
  void close_window(Device& d);
  /// Sets one field of a known device's state and counts a change when it differs; unknown devices ignored.
  template <class T>
  void set_state(std::uint32_t device, T DeviceState::*field, T value);

  LiveStateOptions options_;
  std::size_t max_windows_;
  mutable std::mutex mutex_;
  std::map<std::uint32_t, Device> devices_;
  std::int64_t newest_ns_ = 0;
  std::uint64_t version_ = 0;
  std::uint64_t closed_windows_ = 0;  ///< windows completed by every device, ever
};

/// Adds one sample to busy counters (the rule of BusyCounters). Pure; exposed for tests and the server.
void accumulate(BusyCounters& counters, const SolSample& sample);

/// A window's chart point.
[[nodiscard]] auto to_history_point(const SolSample& window) -> HistoryPoint;

}  // namespace solscope::core
