#include "runtime/live_sampling.hpp"

#include <utility>

namespace solscope::app {

LiveSampling::LiveSampling(sources::CounterSource& source, core::LiveState& state,
                           const std::atomic<bool>& external_stop, LiveSamplingOptions options)
    : sink_(state, source, std::move(options.publish)) {
  engine_ = std::make_unique<BackgroundEngine>(
      source, std::vector<SampleSink*>{&sink_}, options.engine, external_stop,
      BackgroundEngineOptions{.annotate = std::move(options.annotate),
                              .pm_yield = std::move(options.pm_yield)});
  // Processes and workloads: NVML's lists on the engine thread, their attribution on the refresher's own.
  refresher_ = std::make_unique<ProcessRefresher>(*engine_, state, std::move(options.notes),
                                                  std::move(options.refresh));
}

LiveSampling::~LiveSampling() {
  stop();
}

void LiveSampling::stop() {
  refresher_.reset();
  engine_->stop();
}

}  // namespace solscope::app
