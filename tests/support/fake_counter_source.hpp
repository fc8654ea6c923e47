// FakeCounterSource: a scripted CounterSource for tests of everything above the sources.
#pragma once

#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "sources/counter_source.hpp"

namespace solscope::testing {

/// Returns the scripted batches one poll at a time, then finishes (or keeps returning empty batches when
/// `never_finish`). A scripted error is returned by the poll at its position. Offers the optional
/// capabilities when asked: ProcessLister when `lists_processes` (the lists in `processes`), PlaybackControl
/// when `plays_back` (records the calls; seek errors when `seek_fails`).
class FakeCounterSource : public sources::CounterSource,
                          public sources::ProcessLister,
                          public sources::PlaybackControl {
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

  auto devices() const -> std::vector<core::DeviceInfo> override { return devices_list; }
  auto start(const sources::SourceConfig& /*config*/) -> core::Result<void> override { return core::ok(); }
  auto poll() -> core::Result<std::vector<core::RawSample>> override {
    ++polls;
    if (batches.empty()) return std::vector<core::RawSample>{};
    auto next = std::move(batches.front());
    batches.pop_front();
    return next;
  }
  auto finished() const -> bool override { return !never_finish && batches.empty(); }
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
};

}  // namespace solscope::testing
