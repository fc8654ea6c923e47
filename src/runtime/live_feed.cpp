#include "runtime/live_feed.hpp"

#include <utility>

namespace solscope::app {

auto device_states_of(const sources::CounterSource& source) -> std::vector<core::DeviceState> {
  std::vector<core::DeviceState> states;
  for (const auto& info : source.devices()) {
    const auto status = source.status(info.index);
    std::string note = status.reason;
    if (!status.hint.empty()) note += (note.empty() ? "" : "; ") + status.hint;
    states.push_back(core::DeviceState{.info = info,
                                       .source = status.source,
                                       .source_note = std::move(note),
                                       .workload_note = {},
                                       .lost = status.lost,
                                       .processes = {}});
  }
  return states;
}

LiveStateSink::LiveStateSink(core::LiveState& state, const sources::CounterSource& source, Listener listener)
    : state_(state), source_(source), listener_(std::move(listener)) {}

auto LiveStateSink::begin(const std::vector<core::DeviceInfo>& /*devices*/) -> core::Result<void> {
  state_.set_devices(device_states_of(source_));
  return core::ok();
}

auto LiveStateSink::on_sample(const core::RawSample& /*raw*/, const core::SolSample& sol)
    -> core::Result<void> {
  state_.add(sol);
  if (listener_) listener_(sol);
  return core::ok();
}

BackgroundEngine::BackgroundEngine(sources::CounterSource& source, std::vector<SampleSink*> sinks,
                                   EngineOptions options, const std::atomic<bool>& external_stop,
                                   BackgroundEngineOptions extras)
    : source_(source),
      engine_(std::make_unique<Engine>(source, std::move(sinks),
                                       extras.warnings != nullptr ? *extras.warnings : warnings_)) {
  auto annotate = std::move(extras.annotate);
  const PmYieldSetup& y = extras.pm_yield;
  if (y.board && source.counter_yield() != nullptr) {
    if (y.board->policy() == core::PmPolicy::kNever) {
      // PM sampling is never opened: no profiler to watch, and the samples say why there is none.
      annotate = [inner = std::move(annotate)](core::RawSample& sample) {
        if (inner) inner(sample);
        mark_policy_pause(sample);
      };
    } else {
      pm_yield_step_ = std::make_unique<PmYieldStep>(y.board, y.now_ns);
      profiler_watch_ = std::make_unique<ProfilerWatch>(y.board, source.devices(), y.procfs_root, y.now_ns,
                                                        y.scan_interval_ns);
    }
  }
  if (annotate) engine_->set_annotator(std::move(annotate));
  engine_->set_external_stop(external_stop);
  engine_->set_before_poll([this] {
    run_commands();
    if (pm_yield_step_) pm_yield_step_->run(source_);
  });
  thread_ = std::thread([this, options, extras = std::move(extras)] { run(options, extras); });
}

BackgroundEngine::~BackgroundEngine() {
  stop();
}

void BackgroundEngine::run(const EngineOptions& options, const BackgroundEngineOptions& extras) {
  std::optional<core::Result<RunSummary>> summary;
  (void)core::guarded_run(
      extras.thread_name, [&] { summary = engine_->run(stop_, options); }, &fault_);
  if (extras.stop_source) {
    (void)core::guarded_run(
        extras.thread_name, [this] { source_.stop(); }, &fault_);
  }
  if (fault_.failed()) {
    summary = core::fail(core::ErrorCode::Internal, fault_.text(),
                         "this is a bug in solscope: please report it with the command line");
  }
  const std::scoped_lock lock(mutex_);
  result_ = std::move(summary);
  done_.store(true);
}

void BackgroundEngine::post(std::function<void(sources::CounterSource&)> command) {
  const std::scoped_lock lock(mutex_);
  commands_.push_back(std::move(command));
}

void BackgroundEngine::run_commands() {
  std::vector<std::function<void(sources::CounterSource&)>> pending;
  {
    const std::scoped_lock lock(mutex_);
    pending.swap(commands_);
  }
  if (pending.empty()) return;
  // A command acts after every sample offered so far reached the sinks (a seek clears the live state, which
  // must not then receive samples of the old position); bounded, so a stalled view cannot stall sampling.
  constexpr std::int64_t kCatchUpBoundMs = 200;
  engine_->catch_up_sinks(kCatchUpBoundMs);
  for (auto& command : pending) command(source_);
}

void BackgroundEngine::stop() {
  stop_.store(true);
  engine_->wake();
  if (thread_.joinable()) thread_.join();
  profiler_watch_.reset();
}

auto BackgroundEngine::wait() -> core::Result<RunSummary> {
  if (thread_.joinable()) thread_.join();
  profiler_watch_.reset();
  const std::scoped_lock lock(mutex_);
  return *result_;  // set by the thread before it ended
}

auto BackgroundEngine::result() const -> std::optional<core::Result<RunSummary>> {
  const std::scoped_lock lock(mutex_);
  return result_;
}

auto BackgroundEngine::warnings() const -> std::string {
  if (!done_.load()) return {};
  return warnings_.str();
}

}  // namespace solscope::app
