#include "runtime/engine_loop.hpp"

#include <algorithm>

#include "runtime/exit_codes.hpp"
#include "runtime/live_feed.hpp"
#include "runtime/messages.hpp"
#include "runtime/signals.hpp"
#include "runtime/sinks.hpp"

namespace solscope::app {

auto poll_interval_for(std::int64_t interval_ns) -> std::int64_t {
  constexpr std::int64_t kMinPollNs = 100'000'000;
  return std::max(interval_ns, kMinPollNs);
}

auto run_engine(sources::CounterSource& source, std::vector<SampleSink*> sinks, const EngineOptions& options,
                std::ostream& err, std::function<void(core::RawSample&)> annotate, PmYieldSetup pm_yield,
                const EngineCompanion& companion) -> int {
  BackgroundEngine engine(
      source, std::move(sinks), options, install_stop_signals(),
      {.annotate = std::move(annotate), .warnings = &err, .pm_yield = std::move(pm_yield)});
  std::shared_ptr<void> beside = companion ? companion(engine) : nullptr;
  const auto summary = engine.wait();
  beside.reset();  // before the engine object goes: the companion posts to it
  source.stop();
  if (!summary && is_reader_gone(summary.error())) return kExitOk;  // `solscope --json | head`
  if (!summary) {
    print_error(err, summary.error());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace solscope::app
