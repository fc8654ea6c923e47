// FakeCounterSource: a scripted CounterSource for tests of everything above the sources.
#pragma once

#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "sources/counter_source.hpp"

namespace solscope::testing {

/// Returns the scripted batches one poll at a time, then finishes (or keeps returning empty batches when
/// `never_finish`). A scripted error is returned by the poll at its position.
class FakeCounterSource : public sources::CounterSource {
 public:
  std::vector<core::DeviceInfo> devices_list;
  std::deque<core::Result<std::vector<core::RawSample>>> batches;
  std::map<std::uint32_t, sources::DeviceStatus> statuses;
  bool never_finish = false;
  int polls = 0;
  bool stopped = false;

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
};

}  // namespace solscope::testing
