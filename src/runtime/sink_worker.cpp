#include "runtime/detail/sink_worker.hpp"

#include <utility>

namespace solscope::app {

SinkWorker::SinkWorker(SampleSink& sink, SinkDelivery delivery)
    : sink_(sink), delivery_(std::move(delivery)), queue_(delivery_.capacity, delivery_.overflow) {
  thread_ = std::thread([this] {
    if (!core::guarded_run(
            delivery_.name, [this] { run(); }, &fault_))
      fail(core::Error{core::ErrorCode::Internal, fault_.text(), {}});
  });
}

SinkWorker::~SinkWorker() {
  (void)finish();
}

auto SinkWorker::offer(const core::RawSample& raw, const core::SolSample& sol) -> core::PushResult {
  return queue_.push(Item{raw, sol});
}

void SinkWorker::run() {
  std::vector<Item> batch;
  while (queue_.pop_all(batch)) {
    for (const Item& item : batch) {
      if (auto r = sink_.on_sample(item.raw, item.sol); !r) return fail(std::move(r.error()));
    }
    if (auto r = sink_.flush(); !r) return fail(std::move(r.error()));
    {
      const std::scoped_lock lock(mutex_);
      handled_ += batch.size();
    }
    caught_up_.notify_all();
  }
}

auto SinkWorker::wait_caught_up(std::chrono::milliseconds bound) -> bool {
  std::unique_lock lock(mutex_);
  return caught_up_.wait_for(lock, bound, [this] {
    const core::QueueCounters c = queue_.counters();
    return error_.has_value() || handled_ + c.dropped >= c.pushed;
  });
}

void SinkWorker::fail(core::Error error) {
  {
    const std::scoped_lock lock(mutex_);
    if (!error_) error_ = std::move(error);
  }
  caught_up_.notify_all();
  (void)queue_.abandon();  // the engine's next offer (or a waiting one) returns Closed at once
}

auto SinkWorker::finish() -> core::Result<void> {
  queue_.close();
  if (thread_.joinable()) thread_.join();
  if (auto e = error()) return core::fail(std::move(*e));
  return core::ok();
}

auto SinkWorker::error() const -> std::optional<core::Error> {
  const std::scoped_lock lock(mutex_);
  return error_;
}

}  // namespace solscope::app
