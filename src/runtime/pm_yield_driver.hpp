// PM yield at run time: the profiler watch (a thread that scans /proc for profilers and tells the
// core::PmYieldBoard what it saw) and the yield step (run on the engine thread before every poll: applies the
// board's decision to each device through the source's CounterYield capability). docs/design/sol-metrics.md
// "Pause states" states the rules and the timing budget.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/device_info.hpp"
#include "core/guarded_run.hpp"
#include "core/pm_yield.hpp"
#include "core/raw_sample.hpp"
#include "sources/counter_source.hpp"

namespace solscope::app {

/// A clock in ns since the Unix epoch: the time base of the board (a ManualPause's since/until are wall
/// times).
using EpochClock = std::function<std::int64_t()>;

/// The system clock in ns since the Unix epoch.
[[nodiscard]] auto system_epoch_ns() -> std::int64_t;

/// How a BackgroundEngine yields PM counters to profilers (BackgroundEngineOptions::pm_yield).
struct PmYieldSetup {
  /// The state machine shared with the HTTP server (manual pause); null = no yielding (a replay,
  /// dcgm-exporter). Yielding also needs a source that offers CounterSource::counter_yield().
  std::shared_ptr<core::PmYieldBoard> board;
  std::filesystem::path procfs_root = "/proc";  ///< where the watch scans (a fake tree in tests)
  EpochClock now_ns;                            ///< empty = system_epoch_ns
  std::int64_t scan_interval_ns = core::kProfilerScanIntervalNs;  ///< time between two scans (> 0)
};

/// The PmYieldSetup of a sampling command: a board with `policy` for a live source, none for a replay.
[[nodiscard]] auto pm_yield_setup(core::PmPolicy policy, bool live) -> PmYieldSetup;

/// True when `chip` (a CUPTI chip name such as "GA100") has a system-wide perfmon lock: Ampere and older
/// (GA1xx, TU1xx, GV1xx, GP1xx; issue text and docs/design/sol-metrics.md "Pause states"), where one
/// profiling session anywhere blocks every other one. False for Ada, Hopper, Blackwell and unknown chips.
[[nodiscard]] auto perfmon_lock_is_system_wide(std::string_view chip) -> bool;

/// The rule of system-wide locks, applied to one scan: when any of `devices` (those sampled) has a
/// system-wide lock, every sighting reaches every device (its device list is emptied); otherwise the
/// sightings are returned as they are.
[[nodiscard]] auto apply_system_wide_lock(std::vector<core::ProfilerSighting> seen,
                                          const std::vector<core::DeviceInfo>& devices)
    -> std::vector<core::ProfilerSighting>;

/// Marks `sample` as paused by `--pm-policy never` (kSamplePmPaused, reason kPolicy) unless the source gave
/// it a reason of its own: under that policy PM sampling is never opened (source_config_from asks for GPM at
/// best), so the source has no pause of its own to report.
void mark_policy_pause(core::RawSample& sample);

/// Scans `procfs_root` every `interval_ns` (workload::scan_profilers over `devices`, then
/// apply_system_wide_lock) and tells `board` what each whole scan saw (PmYieldBoard::observe at the scan's
/// start time). The first scan runs at once. Its thread runs under core::guarded_run: an exception stops the
/// watch (sampling goes on) and status() says why. Destruction stops and joins it within 100 ms (a scan in
/// progress is cancelled between two processes).
class ProfilerWatch {
 public:
  ProfilerWatch(std::shared_ptr<core::PmYieldBoard> board, std::vector<core::DeviceInfo> devices,
                std::filesystem::path procfs_root, EpochClock now_ns, std::int64_t interval_ns);
  ~ProfilerWatch();
  ProfilerWatch(const ProfilerWatch&) = delete;
  auto operator=(const ProfilerWatch&) -> ProfilerWatch& = delete;

  /// "" while watching; "the profiler watch stopped: <what>" after a fault. Thread-safe.
  [[nodiscard]] auto status() const -> std::string { return fault_.text(); }
  /// Whole scans done so far. Thread-safe.
  [[nodiscard]] auto scans() const -> std::uint64_t { return scans_.load(); }

 private:
  void run();

  std::shared_ptr<core::PmYieldBoard> board_;
  std::vector<core::DeviceInfo> devices_;
  std::filesystem::path procfs_root_;
  EpochClock now_ns_;
  std::int64_t interval_ns_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> scans_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  core::ThreadFault fault_;
  std::thread thread_;
};

/// The yield step, run on the engine thread before every poll (the only thread that may touch the source).
/// For each device the source yields (CounterYield::yields), it asks the board what applies now and, when
/// that differs from what it last applied, calls set_pm_pause (a pause reason, or kNone to resume). CUPTI's
/// word that the counters are taken (take_counters_busy, or Unavailable on a resume) goes to the board as
/// counters_busy, which tries again after kCountersBusyRetryNs. Another error of set_pm_pause is tried again
/// after kCountersBusyRetryNs too, and kept for last_error(). Does nothing for a source without CounterYield.
class PmYieldStep {
 public:
  PmYieldStep(std::shared_ptr<core::PmYieldBoard> board, EpochClock now_ns);

  void run(sources::CounterSource& source);
  /// What the step last applied to `device` (kNone: not paused).
  [[nodiscard]] auto applied(std::uint32_t device) const -> core::PmPauseReason;
  /// The last error of set_pm_pause other than Unavailable, "" when none.
  [[nodiscard]] auto last_error() const -> const std::string& { return last_error_; }

 private:
  void apply(sources::CounterYield& counters, std::uint32_t device, std::int64_t now_ns);

  std::shared_ptr<core::PmYieldBoard> board_;
  EpochClock now_ns_;
  std::vector<std::uint32_t> devices_;  ///< the source's devices, read once (they are fixed after start)
  std::map<std::uint32_t, core::PmPauseReason> applied_;
  std::map<std::uint32_t, std::int64_t> retry_at_ns_;  ///< device -> no new try before this time
  std::string last_error_;
};

}  // namespace solscope::app
