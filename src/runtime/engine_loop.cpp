#include "runtime/engine_loop.hpp"

#include <algorithm>

#include "runtime/exit_codes.hpp"
#include "runtime/messages.hpp"
#include "runtime/signals.hpp"
#include "runtime/sinks.hpp"

namespace solscope::app {

auto poll_interval_for(std::int64_t interval_ns) -> std::int64_t {
  constexpr std::int64_t kMinPollNs = 100'000'000;
  return std::max(interval_ns, kMinPollNs);
}

auto run_engine(sources::CounterSource& source, std::vector<SampleSink*> sinks, const EngineOptions& options,
                std::ostream& err, std::function<void(core::RawSample&)> annotate) -> int {
  Engine engine(source, std::move(sinks), err);
  if (annotate) engine.set_annotator(std::move(annotate));
  auto summary = engine.run(install_stop_signals(), options);
  source.stop();
  if (!summary && is_reader_gone(summary.error())) return kExitOk;  // `solscope --json | head`
  if (!summary) {
    print_error(err, summary.error());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace solscope::app
