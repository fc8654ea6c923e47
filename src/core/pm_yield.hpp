// PM yield: when solscope gives a GPU's exclusive performance counters (CUPTI PM sampling) back to a profiler
// and when it takes them again. A pure state machine over three inputs: a manual pause (`solscope profile
// pause`, POST /api/v1/profiling/pause), what the profiler watch saw on this node (an ncu/nsys process,
// Nsight's injection libraries in a process, a DCGM host engine with its profiling module), and CUPTI saying
// that the counters are taken. Every time is an argument (Unix-epoch ns): nothing here reads a clock.
// docs/design/sol-metrics.md "Pause states" states the rules; the constants below are the only copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace solscope::core {

/// Why PM sampling of a device is paused. Lowercase names (to_string) are used in JSON, traces and the
/// `reason` label of `solscope_pm_paused`.
enum class PmPauseReason : std::uint8_t {
  kNone,          ///< "none": not paused
  kManual,        ///< "manual": `solscope profile pause` or POST /api/v1/profiling/pause
  kProfiler,      ///< "profiler": an Nsight Compute/Systems process (or its injection library) on this node
  kDcgm,          ///< "dcgm": a DCGM host engine with its profiling module loaded
  kCountersBusy,  ///< "counters_busy": CUPTI answered that another profiler holds the counters
  kPolicy,        ///< "policy": `--pm-policy never`: PM sampling is never used
  kCount
};

/// The number of PmPauseReason values, kNone included (arrays indexed by reason).
inline constexpr std::size_t kPmPauseReasonCount = static_cast<std::size_t>(PmPauseReason::kCount);

[[nodiscard]] auto to_string(PmPauseReason reason) -> std::string_view;
/// The reason named `text` (a to_string() name); nullopt for any other text.
[[nodiscard]] auto parse_pm_pause_reason(std::string_view text) -> std::optional<PmPauseReason>;

/// `--pm-policy`: what the daemon does when a profiler appears.
enum class PmPolicy : std::uint8_t {
  kYield,  ///< "yield" (default): give the counters back within 1 s, take them again once it is gone
  kHold,   ///< "hold": never yield on its own; a manual pause still works
  kNever,  ///< "never": never use PM sampling (GPM or NVML only)
  kCount
};

[[nodiscard]] auto to_string(PmPolicy policy) -> std::string_view;
[[nodiscard]] auto parse_pm_policy(std::string_view text) -> std::optional<PmPolicy>;

/// A pause without `--for` ends after 30 minutes, so that a forgotten pause cannot leave a fleet blind.
inline constexpr std::int64_t kDefaultPmPauseNs = 30LL * 60 * 1'000'000'000;
/// The longest pause accepted (24 hours); longer asks are InvalidArgument.
inline constexpr std::int64_t kMaxPmPauseNs = 24LL * 3600 * 1'000'000'000;
/// A profiler counts as gone once no scan has seen it for this long (2 s): with the watch's scan period and
/// the engine's poll, PM sampling is taken again within 5 s of its end.
inline constexpr std::int64_t kProfilerGoneAfterNs = 2'000'000'000;
/// After CUPTI said the counters are taken, PM sampling is tried again this long later (3 s).
inline constexpr std::int64_t kCountersBusyRetryNs = 3'000'000'000;
/// How often the profiler watch scans /proc (500 ms): with a poll every 100-250 ms the counters are given
/// back within 1 s of a profiler's start.
inline constexpr std::int64_t kProfilerScanIntervalNs = 500'000'000;

/// A pause asked for by a person or a script.
struct ManualPause {
  std::string by;                      ///< who asked: "user@host" or the API client's address; free text
  std::int64_t since_ns = 0;           ///< when it was asked
  std::int64_t until_ns = 0;           ///< when it ends on its own (> since_ns)
  std::vector<std::uint32_t> devices;  ///< device indices; empty = every device
};

/// One profiler the watch saw in one scan.
struct ProfilerSighting {
  PmPauseReason reason = PmPauseReason::kProfiler;  ///< kProfiler or kDcgm
  std::string what;  ///< for people: "ncu (pid 4242)", "nv-hostengine (pid 17) profiling module"
  std::vector<std::uint32_t> devices;  ///< device indices it can touch; empty = every device
};

/// What applies to one device now.
struct PmDecision {
  bool paused = false;
  PmPauseReason reason = PmPauseReason::kNone;
  std::string detail;         ///< "ncu (pid 4242)", "by alice@node1", "" when not paused
  std::int64_t until_ns = 0;  ///< manual: when it ends; 0 otherwise
};

/// The state machine (see the file comment). Precedence when several apply: policy, manual, profiler, dcgm,
/// counters_busy. Not thread-safe (PmYieldBoard is).
class PmYield {
 public:
  explicit PmYield(PmPolicy policy = PmPolicy::kYield) : policy_(policy) {}

  [[nodiscard]] auto policy() const -> PmPolicy { return policy_; }
  /// Starts (or replaces) the manual pause. Errors: InvalidArgument when until_ns <= since_ns or the pause is
  /// longer than kMaxPmPauseNs.
  [[nodiscard]] auto pause(ManualPause pause) -> Result<void>;
  /// Ends the manual pause; false when none was active at `now_ns`.
  auto resume(std::int64_t now_ns) -> bool;
  /// The manual pause active at `now_ns`, if any.
  [[nodiscard]] auto manual(std::int64_t now_ns) const -> std::optional<ManualPause>;
  /// One whole scan of the node at `now_ns`: every profiler seen in it. A profiler not seen for
  /// kProfilerGoneAfterNs no longer pauses anything. Ignored (but kept for status) under kHold and kNever.
  void observe(std::int64_t now_ns, std::vector<ProfilerSighting> seen);
  /// CUPTI said at `now_ns` that another profiler holds `device`'s counters (`what`: its message).
  void counters_busy(std::uint32_t device, std::int64_t now_ns, std::string what);
  /// What applies to `device` at `now_ns`.
  [[nodiscard]] auto decide(std::uint32_t device, std::int64_t now_ns) const -> PmDecision;
  /// The profilers of the last scan (empty before the first).
  [[nodiscard]] auto last_seen() const -> const std::vector<ProfilerSighting>& { return seen_; }

 private:
  struct Held {
    ProfilerSighting sighting;
    std::int64_t last_seen_ns = 0;
  };
  struct Busy {
    std::int64_t when_ns = 0;
    std::string what;
  };
  PmPolicy policy_;
  std::optional<ManualPause> manual_;
  std::vector<ProfilerSighting> seen_;  ///< the last scan
  /// Every profiler seen within kProfilerGoneAfterNs, keyed by (reason, what).
  std::map<std::pair<PmPauseReason, std::string>, Held> held_;
  std::map<std::uint32_t, Busy> busy_;  ///< device -> when CUPTI last said its counters are taken
};

/// PmYield behind a mutex, shared by the HTTP server (manual pause), the profiler watch (observe) and the
/// engine's thread (decide, counters_busy). Every member is thread-safe.
class PmYieldBoard {
 public:
  explicit PmYieldBoard(PmPolicy policy = PmPolicy::kYield) : yield_(policy) {}
  [[nodiscard]] auto policy() const -> PmPolicy;
  [[nodiscard]] auto pause(ManualPause pause) -> Result<void>;
  auto resume(std::int64_t now_ns) -> bool;
  [[nodiscard]] auto manual(std::int64_t now_ns) const -> std::optional<ManualPause>;
  void observe(std::int64_t now_ns, std::vector<ProfilerSighting> seen);
  void counters_busy(std::uint32_t device, std::int64_t now_ns, std::string what);
  [[nodiscard]] auto decide(std::uint32_t device, std::int64_t now_ns) const -> PmDecision;
  [[nodiscard]] auto last_seen() const -> std::vector<ProfilerSighting>;

 private:
  mutable std::mutex mutex_;
  PmYield yield_;
};

}  // namespace solscope::core
