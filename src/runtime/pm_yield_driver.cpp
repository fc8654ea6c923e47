#include "runtime/pm_yield_driver.hpp"

#include <array>
#include <chrono>
#include <utility>

#include "workload/profiler_scan.hpp"

namespace solscope::app {

auto system_epoch_ns() -> std::int64_t {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

auto pm_yield_setup(core::PmPolicy policy, bool live) -> PmYieldSetup {
  PmYieldSetup setup;
  if (live) setup.board = std::make_shared<core::PmYieldBoard>(policy);
  return setup;
}

auto perfmon_lock_is_system_wide(std::string_view chip) -> bool {
  // CUPTI's chip names: GP = Pascal, GV = Volta, TU = Turing, GA = Ampere; AD (Ada), GH (Hopper) and GB
  // (Blackwell) lock per GPU.
  static constexpr std::array<std::string_view, 4> kSystemWide{"GP", "GV", "TU", "GA"};
  for (const std::string_view prefix : kSystemWide) {
    if (chip.starts_with(prefix)) return true;
  }
  return false;
}

auto apply_system_wide_lock(std::vector<core::ProfilerSighting> seen,
                            const std::vector<core::DeviceInfo>& devices)
    -> std::vector<core::ProfilerSighting> {
  bool system_wide = false;
  for (const auto& d : devices) system_wide = system_wide || perfmon_lock_is_system_wide(d.chip);
  if (system_wide) {
    for (auto& s : seen) s.devices.clear();
  }
  return seen;
}

void mark_policy_pause(core::RawSample& sample) {
  if (sample.pm_pause != core::PmPauseReason::kNone) return;
  sample.pm_pause = core::PmPauseReason::kPolicy;
  sample.flags |= core::kSamplePmPaused;
}

ProfilerWatch::ProfilerWatch(std::shared_ptr<core::PmYieldBoard> board, std::vector<core::DeviceInfo> devices,
                             std::filesystem::path procfs_root, EpochClock now_ns, std::int64_t interval_ns)
    : board_(std::move(board)),
      devices_(std::move(devices)),
      procfs_root_(std::move(procfs_root)),
      now_ns_(now_ns ? std::move(now_ns) : EpochClock(system_epoch_ns)),
      interval_ns_(interval_ns > 0 ? interval_ns : core::kProfilerScanIntervalNs) {
  thread_ = std::thread([this] {
    (void)core::guarded_run(
        "the profiler watch", [this] { run(); }, &fault_);
  });
}

ProfilerWatch::~ProfilerWatch() {
  {
    const std::scoped_lock lock(mutex_);
    stop_.store(true);
  }
  wake_.notify_all();
  thread_.join();
}

void ProfilerWatch::run() {
  while (!stop_.load()) {
    const std::int64_t started_ns = now_ns_();
    auto seen = workload::scan_profilers(procfs_root_, devices_, &stop_);
    if (stop_.load()) return;  // a cancelled scan is not a whole one
    board_->observe(started_ns, apply_system_wide_lock(std::move(seen), devices_));
    scans_.fetch_add(1);
    std::unique_lock lock(mutex_);
    wake_.wait_for(lock, std::chrono::nanoseconds(interval_ns_), [this] { return stop_.load(); });
  }
}

PmYieldStep::PmYieldStep(std::shared_ptr<core::PmYieldBoard> board, EpochClock now_ns)
    : board_(std::move(board)), now_ns_(now_ns ? std::move(now_ns) : EpochClock(system_epoch_ns)) {}

auto PmYieldStep::applied(std::uint32_t device) const -> core::PmPauseReason {
  const auto it = applied_.find(device);
  return it == applied_.end() ? core::PmPauseReason::kNone : it->second;
}

void PmYieldStep::run(sources::CounterSource& source) {
  sources::CounterYield* counters = board_ ? source.counter_yield() : nullptr;
  if (counters == nullptr) return;
  const std::int64_t now_ns = now_ns_();
  for (auto& [device, what] : counters->take_counters_busy()) {
    board_->counters_busy(device, now_ns, std::move(what));
    applied_[device] = core::PmPauseReason::kCountersBusy;  // the source already moved it to its fallback
  }
  if (devices_.empty()) {
    for (const auto& info : source.devices()) devices_.push_back(info.index);
  }
  for (const std::uint32_t device : devices_) {
    if (counters->yields(device)) apply(*counters, device, now_ns);
  }
}

void PmYieldStep::apply(sources::CounterYield& counters, std::uint32_t device, std::int64_t now_ns) {
  const core::PmDecision decision = board_->decide(device, now_ns);
  const core::PmPauseReason want = decision.paused ? decision.reason : core::PmPauseReason::kNone;
  core::PmPauseReason& have = applied_[device];
  if (want == have) return;
  if (const auto retry = retry_at_ns_.find(device); retry != retry_at_ns_.end() && now_ns < retry->second) {
    return;
  }
  auto done = counters.set_pm_pause(device, want);
  if (done) {
    have = want;
    retry_at_ns_.erase(device);
    return;
  }
  if (want == core::PmPauseReason::kNone && done.error().code == core::ErrorCode::Unavailable) {
    // CUPTI: another profiler took the counters; the source keeps the device paused with kCountersBusy.
    board_->counters_busy(device, now_ns, done.error().message);
    have = core::PmPauseReason::kCountersBusy;
    return;
  }
  last_error_ = "GPU " + std::to_string(device) + ": " + done.error().message;
  retry_at_ns_[device] = now_ns + core::kCountersBusyRetryNs;
}

}  // namespace solscope::app
