#include "core/pm_yield.hpp"

#include <algorithm>

#include "core/enum_table.hpp"

namespace solscope::core {
namespace {

constexpr EnumNames<PmPauseReason> kReasonNames({"none", "manual", "profiler", "dcgm", "counters_busy",
                                                 "policy"},
                                                "unknown");
constexpr EnumNames<PmPolicy> kPolicyNames({"yield", "hold", "never"}, "unknown");

template <class Enum>
auto parse_name(const EnumNames<Enum>& names, std::string_view text) -> std::optional<Enum> {
  for (std::size_t i = 0; i < static_cast<std::size_t>(Enum::kCount); ++i) {
    const auto e = static_cast<Enum>(i);
    if (names(e) == text) return e;
  }
  return std::nullopt;
}

auto covers(const std::vector<std::uint32_t>& devices, std::uint32_t device) -> bool {
  return devices.empty() || std::find(devices.begin(), devices.end(), device) != devices.end();
}

}  // namespace

auto to_string(PmPauseReason reason) -> std::string_view {
  return kReasonNames(reason);
}

auto parse_pm_pause_reason(std::string_view text) -> std::optional<PmPauseReason> {
  return parse_name(kReasonNames, text);
}

auto to_string(PmPolicy policy) -> std::string_view {
  return kPolicyNames(policy);
}

auto parse_pm_policy(std::string_view text) -> std::optional<PmPolicy> {
  return parse_name(kPolicyNames, text);
}

auto PmYield::pause(ManualPause pause) -> Result<void> {
  if (pause.until_ns <= pause.since_ns) {
    return fail(ErrorCode::InvalidArgument, "a pause must end after it starts",
                "give a positive duration, e.g. --for 10m");
  }
  if (pause.until_ns - pause.since_ns > kMaxPmPauseNs) {
    return fail(ErrorCode::InvalidArgument, "a pause may last 24 hours at most",
                "pause for less, and pause again if it is still needed");
  }
  manual_ = std::move(pause);
  return ok();
}

auto PmYield::resume(std::int64_t now_ns) -> bool {
  const bool active = manual(now_ns).has_value();
  manual_.reset();
  return active;
}

auto PmYield::manual(std::int64_t now_ns) const -> std::optional<ManualPause> {
  if (manual_ && manual_->until_ns > now_ns) return manual_;
  return std::nullopt;
}

void PmYield::observe(std::int64_t now_ns, std::vector<ProfilerSighting> seen) {
  for (const ProfilerSighting& s : seen)
    held_[{s.reason, s.what}] = Held{.sighting = s, .last_seen_ns = now_ns};
  std::erase_if(held_, [now_ns](const auto& entry) {
    return now_ns - entry.second.last_seen_ns >= kProfilerGoneAfterNs;
  });
  seen_ = std::move(seen);
}

void PmYield::counters_busy(std::uint32_t device, std::int64_t now_ns, std::string what) {
  busy_[device] = Busy{.when_ns = now_ns, .what = std::move(what)};
}

auto PmYield::decide(std::uint32_t device, std::int64_t now_ns) const -> PmDecision {
  if (policy_ == PmPolicy::kNever) {
    return {.paused = true, .reason = PmPauseReason::kPolicy, .detail = "--pm-policy never", .until_ns = 0};
  }
  if (const auto m = manual(now_ns); m && covers(m->devices, device)) {
    return {.paused = true,
            .reason = PmPauseReason::kManual,
            .detail = m->by.empty() ? std::string() : "by " + m->by,
            .until_ns = m->until_ns};
  }
  if (policy_ == PmPolicy::kYield) {
    for (const PmPauseReason reason : {PmPauseReason::kProfiler, PmPauseReason::kDcgm}) {
      for (const auto& [key, held] : held_) {
        if (key.first != reason || now_ns - held.last_seen_ns >= kProfilerGoneAfterNs) continue;
        if (!covers(held.sighting.devices, device)) continue;
        return {.paused = true, .reason = reason, .detail = held.sighting.what, .until_ns = 0};
      }
    }
  }
  if (const auto it = busy_.find(device);
      it != busy_.end() && now_ns - it->second.when_ns < kCountersBusyRetryNs) {
    return {.paused = true, .reason = PmPauseReason::kCountersBusy, .detail = it->second.what, .until_ns = 0};
  }
  return {};
}

auto PmYieldBoard::policy() const -> PmPolicy {
  const std::lock_guard lock(mutex_);
  return yield_.policy();
}

auto PmYieldBoard::pause(ManualPause pause) -> Result<void> {
  const std::lock_guard lock(mutex_);
  return yield_.pause(std::move(pause));
}

auto PmYieldBoard::resume(std::int64_t now_ns) -> bool {
  const std::lock_guard lock(mutex_);
  return yield_.resume(now_ns);
}

auto PmYieldBoard::manual(std::int64_t now_ns) const -> std::optional<ManualPause> {
  const std::lock_guard lock(mutex_);
  return yield_.manual(now_ns);
}

void PmYieldBoard::observe(std::int64_t now_ns, std::vector<ProfilerSighting> seen) {
  const std::lock_guard lock(mutex_);
  yield_.observe(now_ns, std::move(seen));
}

void PmYieldBoard::counters_busy(std::uint32_t device, std::int64_t now_ns, std::string what) {
  const std::lock_guard lock(mutex_);
  yield_.counters_busy(device, now_ns, std::move(what));
}

auto PmYieldBoard::decide(std::uint32_t device, std::int64_t now_ns) const -> PmDecision {
  const std::lock_guard lock(mutex_);
  return yield_.decide(device, now_ns);
}

auto PmYieldBoard::last_seen() const -> std::vector<ProfilerSighting> {
  const std::lock_guard lock(mutex_);
  return yield_.last_seen();
}

}  // namespace solscope::core
