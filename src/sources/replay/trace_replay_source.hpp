// TraceReplaySource: plays a recorded trace through the CounterSource interface, so the whole app (views,
// server, exporter) runs without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/device_info.hpp"
#include "core/raw_sample.hpp"
#include "core/result.hpp"
#include "sources/counter_source.hpp"
#include "trace/reader.hpp"

namespace solscope::replay {

/// How a trace is played.
struct ReplayOptions {
  /// Trace seconds played per wall-clock second (2 = twice as fast); 0 = as fast as possible, max_batch
  /// samples per poll(). Must be >= 0 and finite.
  double speed = 1.0;
  /// Start again from the beginning at the end. Each pass shifts sample times by the trace's span (first
  /// t_start_ns to last t_end_ns), so times keep increasing.
  bool loop = false;
  /// Most samples one poll() returns (>= 1), so that a slow consumer or speed 0 gets bounded batches.
  std::size_t max_batch = 4096;
  /// Monotonic clock in ns (std::chrono::steady_clock when empty); tests inject their own.
  std::function<std::int64_t()> steady_clock_ns{};
};

/// What a replay's reads of its trace met, for the command to tell the user when the replay ends.
struct ReplayReport {
  /// The account of the most complete pass over the trace (the one that returned and skipped the most; a
  /// plain replay has one pass, a loop or a seek starts another).
  trace::ReadReport read;
  /// trace::Reader::problem(read): samples read and skipped and where the damage begins, or the open's
  /// recovery note; nullopt for a clean trace.
  std::optional<core::Error> problem;
};

/// A CounterSource over a trace file (docs/design/architecture.md section 3, item 4).
///
/// A sample is due once the wall time since start() (or the last seek/resume), times `speed`, reaches its
/// t_end_ns minus the first played t_start_ns: a live source likewise reports a sample when its interval has
/// ended. Samples keep their device, times (shifted when looping), flags and values; their source becomes
/// SourceKind::Replay, and kSampleRecovered is set on every sample of a trace that was cut short or damaged.
/// SourceConfig::interval_ns is ignored (the trace's own intervals play). Not thread-safe.
class TraceReplaySource final : public sources::CounterSource, public sources::PlaybackControl {
 public:
  /// Opens `path` (errors of trace::Reader::open) and checks `options` (InvalidArgument).
  [[nodiscard]] static auto open(const std::filesystem::path& path, ReplayOptions options = {})
      -> core::Result<std::unique_ptr<TraceReplaySource>>;

  /// The devices recorded in the trace; after start(), those selected by SourceConfig::devices.
  [[nodiscard]] auto devices() const -> std::vector<core::DeviceInfo> override;
  /// Begins playing. Errors: InvalidArgument when SourceConfig::devices names a device the trace lacks;
  /// FailedPrecondition when already started.
  [[nodiscard]] auto start(const sources::SourceConfig& config) -> core::Result<void> override;
  /// The samples that are due (at most max_batch), in time order; none while paused. FailedPrecondition
  /// before start() or after stop().
  [[nodiscard]] auto poll() -> core::Result<std::vector<core::RawSample>> override;
  /// True once every sample has been returned (never while looping over a non-empty trace).
  [[nodiscard]] auto finished() const -> bool override;
  void stop() override;
  /// SourceKind::Replay with the file (and the recovery note) as the reason, for recorded devices; None
  /// otherwise.
  [[nodiscard]] auto status(std::uint32_t device) const -> sources::DeviceStatus override;

  /// Jumps to trace time `t_ns` (the file's clock, without loop shifts): the next sample is the first with
  /// t_start_ns >= t_ns, due after its interval at `speed`. Errors: those of Reader::cursor;
  /// FailedPrecondition before start().
  [[nodiscard]] auto seek(std::int64_t t_ns) -> core::Result<void> override;
  /// Stops the replay clock (poll() returns nothing) until resume(). Idempotent.
  void pause() override;
  /// Restarts the clock from where pause() left it. Idempotent.
  void resume() override;
  [[nodiscard]] auto paused() const -> bool override { return paused_; }
  /// Plays on at `speed` (as ReplayOptions::speed) from the position playing now; a paused replay keeps its
  /// position and resumes at the new speed. Errors: InvalidArgument for a negative or non-finite speed.
  [[nodiscard]] auto set_speed(double speed) -> core::Result<void> override;
  /// The trace time now playing (loop shift included); the last returned t_end_ns at speed 0.
  [[nodiscard]] auto position_ns() const -> std::int64_t override;
  /// This replay's clock (pause, speed, seek above).
  [[nodiscard]] auto playback() -> sources::PlaybackControl* override { return this; }
  /// The trace's meta table (synthetic or recorded, host, tool version...).
  [[nodiscard]] auto metadata() const -> const trace::TraceMetadata& { return reader_.metadata(); }
  /// True when the trace is cut short or damaged (its samples carry kSampleRecovered).
  [[nodiscard]] auto recovered() const -> bool;
  /// The read account, updated at the end of each pass, on seek() and on stop(); the pointer stays valid
  /// after the source is gone. Read it from another thread only once the source is stopped or finished.
  [[nodiscard]] auto report() const -> std::shared_ptr<const ReplayReport> { return report_; }

 private:
  TraceReplaySource(trace::Reader reader, ReplayOptions options);
  [[nodiscard]] auto now_ns() const -> std::int64_t;
  [[nodiscard]] auto open_cursor(std::int64_t from_ns) -> core::Result<void>;
  /// Reads the next sample into `lookahead_` (looping when asked); false at the end.
  [[nodiscard]] auto fill_lookahead() -> bool;
  /// Anchors the trace clock at the lookahead's t_start_ns (or `fallback_ns` when there is none) and now.
  void anchor_at_lookahead(std::int64_t fallback_ns);
  /// Folds the current cursor's account into report_ (kept when it is the most complete pass so far).
  void take_account();

  trace::Reader reader_;
  ReplayOptions options_;
  std::vector<std::uint32_t> selected_;  ///< device filter from start(); empty = all
  std::optional<trace::SampleCursor> cursor_;
  std::optional<core::RawSample> lookahead_;
  bool started_ = false;
  bool stopped_ = false;
  bool paused_ = false;
  bool finished_ = false;
  bool damaged_ = false;              ///< the cursor met damage during this replay
  std::int64_t wall_anchor_ns_ = 0;   ///< steady time when the trace clock was last anchored
  std::int64_t trace_anchor_ns_ = 0;  ///< trace time (shift included) at wall_anchor_ns_
  std::int64_t paused_at_ns_ = 0;     ///< trace time when pause() stopped the clock
  std::int64_t shift_ns_ = 0;         ///< added to sample times on this pass (loop)
  /// First t_start_ns to last t_end_ns of the file (>= 1; the loop shift), read at the first loop.
  std::optional<std::int64_t> span_ns_;
  bool pass_has_samples_ = false;  ///< the current pass returned a sample (an empty pass ends a loop)
  std::int64_t last_emitted_end_ns_ = 0;
  std::shared_ptr<ReplayReport> report_;
};

}  // namespace solscope::replay
