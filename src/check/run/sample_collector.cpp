#include "check/run/detail/sample_collector.hpp"

#include <utility>

#include "runtime/live_feed.hpp"

namespace solscope::app {

auto SampleStore::begin(const std::vector<core::DeviceInfo>& /*devices*/) -> core::Result<void> {
  return core::ok();
}

auto SampleStore::on_sample(const core::RawSample& raw, const core::SolSample& /*sol*/)
    -> core::Result<void> {
  samples_.push_back(raw);
  return core::ok();
}

auto SampleStore::delivery() const -> SinkDelivery {
  return SinkDelivery{
      .overflow = core::Overflow::Wait, .capacity = kCapacity, .name = "the check's sample store"};
}

SampleCollector::SampleCollector(sources::CounterSource& source, std::int64_t poll_interval_ns)
    : source_(source), poll_interval_ns_(poll_interval_ns) {}

SampleCollector::~SampleCollector() = default;  // the engine's destructor stops it before the store goes

void SampleCollector::start() {
  engine_ = std::make_unique<BackgroundEngine>(
      source_, std::vector<SampleSink*>{&store_}, EngineOptions{.poll_interval_ns = poll_interval_ns_},
      no_signal_stop_, BackgroundEngineOptions{.thread_name = "the check's sampling thread"});
}

auto SampleCollector::finish() -> core::Result<std::vector<core::RawSample>> {
  if (!engine_) return std::vector<core::RawSample>{};
  engine_->stop();
  const auto ran = engine_->result();
  if (ran && !*ran) return core::fail(ran->error());
  return store_.take();
}

}  // namespace solscope::app
