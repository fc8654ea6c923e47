#include "sources/replay/trace_replay_source.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace solscope::replay {
namespace {

constexpr std::int64_t kMinNs = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMaxNs = std::numeric_limits<std::int64_t>::max();

auto steady_now_ns() -> std::int64_t {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

auto not_started(std::string_view call) -> core::Error {
  return core::Error{core::ErrorCode::FailedPrecondition,
                     "trace replay " + std::string(call) + " called before start() or after stop()",
                     {}};
}

auto index_list(const std::vector<core::DeviceInfo>& devices) -> std::string {
  std::string list;
  for (const core::DeviceInfo& d : devices) {
    if (!list.empty()) list += ", ";
    list += std::to_string(d.index);
  }
  return list;
}

}  // namespace

TraceReplaySource::TraceReplaySource(trace::Reader reader, ReplayOptions options)
    : reader_(std::move(reader)), options_(std::move(options)) {
  if (!options_.steady_clock_ns) options_.steady_clock_ns = steady_now_ns;
  report_ = std::make_shared<ReplayReport>();
  report_->problem = reader_.problem(report_->read);
}

void TraceReplaySource::take_account() {
  if (!cursor_) return;
  const trace::ReadReport& pass = cursor_->report();
  const trace::ReadReport& best = report_->read;
  if (pass.samples + pass.skipped_rows < best.samples + best.skipped_rows) return;
  if (pass.samples == best.samples && !pass.damaged()) return;
  report_->read = pass;
  report_->problem = reader_.problem(pass);
}

auto TraceReplaySource::open(const std::filesystem::path& path, ReplayOptions options)
    -> core::Result<std::unique_ptr<TraceReplaySource>> {
  if (!(options.speed >= 0.0) || !std::isfinite(options.speed)) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "replay speed " + std::to_string(options.speed) + " is out of range",
                      "give a speed >= 0 (1 = real time, 0 = as fast as possible)");
  }
  if (options.max_batch == 0) {
    return core::fail(core::ErrorCode::InvalidArgument, "replay batch size must be at least 1 sample");
  }
  auto reader = trace::Reader::open(path);
  if (!reader) return core::propagate(reader);
  return std::unique_ptr<TraceReplaySource>(new TraceReplaySource(std::move(*reader), std::move(options)));
}

auto TraceReplaySource::now_ns() const -> std::int64_t {
  return options_.steady_clock_ns();
}

auto TraceReplaySource::devices() const -> std::vector<core::DeviceInfo> {
  std::vector<core::DeviceInfo> out;
  for (const core::DeviceInfo& d : reader_.devices()) {
    if (selected_.empty() || std::find(selected_.begin(), selected_.end(), d.index) != selected_.end()) {
      out.push_back(d);
    }
  }
  return out;
}

auto TraceReplaySource::open_cursor(std::int64_t from_ns) -> core::Result<void> {
  take_account();
  lookahead_.reset();
  auto cursor = reader_.cursor(trace::ReadOptions{.devices = selected_, .from_ns = from_ns});
  if (!cursor) return core::propagate(cursor);
  cursor_.emplace(std::move(*cursor));
  return core::ok();
}

auto TraceReplaySource::fill_lookahead() -> bool {
  core::RawSample sample;
  bool got = cursor_->next(sample);
  if (cursor_->damage()) damaged_ = true;
  if (!got && options_.loop && pass_has_samples_) {
    // Next pass (open_cursor takes this pass's account): shift by the trace's span so that times keep
    // increasing.
    if (!span_ns_) {
      const auto span = reader_.time_span();
      span_ns_ = span && *span ? std::max<std::int64_t>((*span)->second - (*span)->first, 1) : 1;
    }
    shift_ns_ += *span_ns_;
    pass_has_samples_ = false;
    if (open_cursor(kMinNs)) got = cursor_->next(sample);
  } else if (!got) {
    take_account();
  }
  if (!got) return false;
  pass_has_samples_ = true;
  sample.t_start_ns += shift_ns_;
  sample.t_end_ns += shift_ns_;
  lookahead_ = sample;
  return true;
}

void TraceReplaySource::anchor_at_lookahead(std::int64_t fallback_ns) {
  trace_anchor_ns_ = lookahead_ ? lookahead_->t_start_ns : fallback_ns;
  wall_anchor_ns_ = now_ns();
  paused_at_ns_ = trace_anchor_ns_;
  last_emitted_end_ns_ = trace_anchor_ns_;
}

auto TraceReplaySource::start(const sources::SourceConfig& config) -> core::Result<void> {
  if (started_) return core::fail(core::ErrorCode::FailedPrecondition, "trace replay is already started");
  const auto& recorded = reader_.devices();
  for (const std::uint32_t device : config.devices) {
    if (!recorded.empty() && reader_.device(device) == nullptr) {
      return core::fail(core::ErrorCode::InvalidArgument,
                        "device " + std::to_string(device) + " is not in trace " + reader_.path().string() +
                            " (it holds " + index_list(recorded) + ")",
                        "pick devices from that list");
    }
  }
  selected_ = config.devices;
  if (auto opened = open_cursor(kMinNs); !opened) return opened;
  started_ = true;
  finished_ = !fill_lookahead();
  anchor_at_lookahead(0);
  return core::ok();
}

auto TraceReplaySource::poll() -> core::Result<std::vector<core::RawSample>> {
  if (!started_ || stopped_) return core::fail(not_started("poll()"));
  std::vector<core::RawSample> out;
  if (paused_ || finished_) return out;
  const std::int64_t played_until = options_.speed == 0.0 ? kMaxNs : position_ns();
  while (out.size() < options_.max_batch) {
    if (!lookahead_ && !fill_lookahead()) {
      finished_ = true;
      break;
    }
    if (lookahead_->t_end_ns > played_until) break;
    core::RawSample& sample = out.emplace_back(*lookahead_);
    lookahead_.reset();
    sample.source = core::SourceKind::Replay;
    if (recovered()) sample.flags |= core::kSampleRecovered;  // damaged_ may turn true within this batch
    last_emitted_end_ns_ = sample.t_end_ns;
  }
  return out;
}

auto TraceReplaySource::finished() const -> bool {
  return finished_;
}

void TraceReplaySource::stop() {
  take_account();
  stopped_ = true;
  lookahead_.reset();
  cursor_.reset();
}

auto TraceReplaySource::status(std::uint32_t device) const -> sources::DeviceStatus {
  sources::DeviceStatus status;
  if (reader_.device(device) == nullptr) return status;
  status.source = core::SourceKind::Replay;
  status.reason = "replaying trace " + reader_.path().string();
  if (reader_.metadata().synthetic) status.reason += " (synthetic data)";
  if (reader_.recovered()) status.reason += ": " + reader_.recovery_note();
  return status;
}

auto TraceReplaySource::seek(std::int64_t t_ns) -> core::Result<void> {
  if (!started_ || stopped_) return core::fail(not_started("seek()"));
  shift_ns_ = 0;
  pass_has_samples_ = false;
  if (auto opened = open_cursor(t_ns); !opened) return opened;
  finished_ = !fill_lookahead();
  anchor_at_lookahead(t_ns);
  return core::ok();
}

void TraceReplaySource::pause() {
  if (paused_) return;
  paused_at_ns_ = position_ns();
  paused_ = true;
}

void TraceReplaySource::resume() {
  if (!paused_) return;
  trace_anchor_ns_ = paused_at_ns_;
  wall_anchor_ns_ = now_ns();
  paused_ = false;
}

auto TraceReplaySource::set_speed(double speed) -> core::Result<void> {
  if (!(speed >= 0.0) || !std::isfinite(speed)) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "replay speed " + std::to_string(speed) + " is out of range",
                      "give a speed >= 0 (1 = real time, 0 = as fast as possible)");
  }
  if (!paused_) {
    trace_anchor_ns_ = position_ns();  // at the old speed
    wall_anchor_ns_ = now_ns();
  }
  options_.speed = speed;
  return core::ok();
}

auto TraceReplaySource::position_ns() const -> std::int64_t {
  if (paused_) return paused_at_ns_;
  if (options_.speed == 0.0) return last_emitted_end_ns_;
  const auto elapsed = static_cast<double>(now_ns() - wall_anchor_ns_) * options_.speed;
  return trace_anchor_ns_ + static_cast<std::int64_t>(elapsed);
}

auto TraceReplaySource::recovered() const -> bool {
  return reader_.recovered() || damaged_;
}

}  // namespace solscope::replay
