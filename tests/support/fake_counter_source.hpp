// FakeCounterSource: a scripted CounterSource for tests of everything above the sources.
#pragma once

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sources/counter_source.hpp"

namespace solscope::testing {

/// Returns the scripted batches one poll at a time, then finishes (or keeps returning empty batches when
/// `never_finish`). A scripted error is returned by the poll at its position. Offers the optional
/// capabilities when asked: ProcessLister when `lists_processes` (the lists in `processes`), PlaybackControl
/// when `plays_back` (records the calls; seek errors when `seek_fails`), CounterYield when `yields_counters`
/// (see below). With `generate`, a poll that has no scripted batch left returns one sample per device, over
/// the wall-clock time since the last one.
///
/// CounterYield follows its contract (counter_source.hpp): set_pm_pause on a device not in `devices_list`
/// is InvalidArgument; a resume while `resume_unavailable` is Unavailable (the contract's answer when CUPTI
/// says another profiler holds the counters) and leaves the device paused with kCountersBusy;
/// take_counters_busy() hands over `busy_pending` once (the source has already paused those devices with
/// kCountersBusy). Every sample of a paused device comes from the fallback (GPM)
/// with kSamplePmPaused and its reason; the others from PM sampling.
class FakeCounterSource : public sources::CounterSource,
                          public sources::ProcessLister,
                          public sources::PlaybackControl,
                          public sources::CounterYield {
 public:
  std::vector<core::DeviceInfo> devices_list;
  std::deque<core::Result<std::vector<core::RawSample>>> batches;
  std::map<std::uint32_t, sources::DeviceStatus> statuses;
  bool never_finish = false;
  int polls = 0;
  bool stopped = false;
  bool lists_processes = false;
  std::map<std::uint32_t, std::vector<sources::DeviceProcess>> processes;
  bool plays_back = false;
  bool is_paused = false;
  double speed = 1.0;
  std::vector<std::int64_t> seeks;
  bool seek_fails = false;
  bool generate = false;
  bool yields_counters = false;
  std::map<std::uint32_t, core::PmPauseReason> pm_paused;  ///< devices paused now, with their reason
  std::vector<std::pair<std::uint32_t, core::PmPauseReason>> pause_calls;  ///< every set_pm_pause call
  std::vector<std::pair<std::uint32_t, std::string>> busy_pending;  ///< for the next take_counters_busy
  bool resume_unavailable = false;

  auto devices() const -> std::vector<core::DeviceInfo> override { return devices_list; }
  auto start(const sources::SourceConfig& /*config*/) -> core::Result<void> override { return core::ok(); }
  auto poll() -> core::Result<std::vector<core::RawSample>> override {
    ++polls;
    if (batches.empty()) return stamped(generate ? generated() : std::vector<core::RawSample>{});
    auto next = std::move(batches.front());
    batches.pop_front();
    if (!next) return next;
    return stamped(std::move(*next));
  }
  auto finished() const -> bool override { return !never_finish && !generate && batches.empty(); }
  void stop() override { stopped = true; }
  auto status(std::uint32_t device) const -> sources::DeviceStatus override {
    auto it = statuses.find(device);
    return it != statuses.end() ? it->second : sources::DeviceStatus{};
  }

  auto process_lister() -> sources::ProcessLister* override { return lists_processes ? this : nullptr; }
  auto processes_on(std::uint32_t device) -> core::Result<std::vector<sources::DeviceProcess>> override {
    auto it = processes.find(device);
    if (it == processes.end()) return core::fail(core::ErrorCode::InvalidArgument, "no such device");
    return it->second;
  }

  auto playback() -> sources::PlaybackControl* override { return plays_back ? this : nullptr; }
  void pause() override { is_paused = true; }
  void resume() override { is_paused = false; }
  auto paused() const -> bool override { return is_paused; }
  auto set_speed(double s) -> core::Result<void> override {
    speed = s;
    return core::ok();
  }
  auto seek(std::int64_t t_ns) -> core::Result<void> override {
    if (seek_fails) return core::fail(core::ErrorCode::DataLoss, "scripted seek failure");
    seeks.push_back(t_ns);
    return core::ok();
  }
  auto position_ns() const -> std::int64_t override { return seeks.empty() ? 0 : seeks.back(); }

  auto counter_yield() -> sources::CounterYield* override { return yields_counters ? this : nullptr; }
  auto yields(std::uint32_t device) const -> bool override { return known(device); }
  auto set_pm_pause(std::uint32_t device, core::PmPauseReason reason) -> core::Result<void> override {
    pause_calls.emplace_back(device, reason);
    if (!known(device)) return core::fail(core::ErrorCode::InvalidArgument, "device not sampled");
    if (reason == core::PmPauseReason::kNone && resume_unavailable) {
      pm_paused[device] = core::PmPauseReason::kCountersBusy;
      return core::fail(core::ErrorCode::Unavailable, "CUPTI: the counters are in use by another profiler");
    }
    if (reason == core::PmPauseReason::kNone) {
      pm_paused.erase(device);
    } else {
      pm_paused[device] = reason;
    }
    return core::ok();
  }
  auto take_counters_busy() -> std::vector<std::pair<std::uint32_t, std::string>> override {
    for (const auto& [device, what] : busy_pending) pm_paused[device] = core::PmPauseReason::kCountersBusy;
    return std::exchange(busy_pending, {});
  }

 private:
  std::map<std::uint32_t, std::int64_t> last_end_ns_;

  auto known(std::uint32_t device) const -> bool {
    for (const auto& d : devices_list) {
      if (d.index == device) return true;
    }
    return false;
  }
  static auto wall_ns() -> std::int64_t {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  auto generated() -> std::vector<core::RawSample> {
    std::vector<core::RawSample> out;
    const std::int64_t now_ns = wall_ns();
    for (const auto& d : devices_list) {
      core::RawSample s;
      s.device_index = d.index;
      auto it = last_end_ns_.try_emplace(d.index, now_ns - 1'000'000).first;
      s.t_start_ns = it->second;
      s.t_end_ns = std::max(now_ns, s.t_start_ns + 1);
      it->second = s.t_end_ns;
      out.push_back(s);
    }
    return out;
  }
  /// Marks the samples of paused devices (only when the fake offers CounterYield).
  auto stamped(std::vector<core::RawSample> batch) const -> std::vector<core::RawSample> {
    if (!yields_counters) return batch;
    for (auto& s : batch) {
      const auto it = pm_paused.find(s.device_index);
      const bool paused = it != pm_paused.end();
      s.source = paused ? core::SourceKind::Gpm : core::SourceKind::PmSampling;
      s.pm_pause = paused ? it->second : core::PmPauseReason::kNone;
      if (paused) s.flags |= core::kSamplePmPaused;
    }
    return batch;
  }
};

}  // namespace solscope::testing
