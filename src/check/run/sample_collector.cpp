#include "check/run/sample_collector.hpp"

#include <chrono>
#include <utility>

namespace solscope::app {

SampleCollector::SampleCollector(sources::CounterSource& source, std::int64_t poll_interval_ns)
    : source_(source), poll_interval_ns_(poll_interval_ns) {}

SampleCollector::~SampleCollector() {
  join();
}

void SampleCollector::join() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void SampleCollector::start() {
  thread_ = std::thread([this] {
    core::guarded_run(
        "the check's sampling thread", [this] { loop(); }, &fault_);
  });
}

void SampleCollector::poll_once() {
  if (error_) return;
  auto got = source_.poll();
  if (!got) {
    error_ = got.error();
    return;
  }
  samples_.insert(samples_.end(), got->begin(), got->end());
}

void SampleCollector::loop() {
  std::unique_lock lock(mutex_);
  while (!error_) {
    wake_.wait_for(lock, std::chrono::nanoseconds(poll_interval_ns_), [this] { return stop_; });
    if (stop_) return;
    lock.unlock();
    poll_once();
    lock.lock();
  }
}

auto SampleCollector::finish() -> core::Result<std::vector<core::RawSample>> {
  join();
  if (fault_.failed()) return core::fail(core::ErrorCode::Internal, fault_.text());
  poll_once();  // the samples completed since the thread's last poll
  if (error_) return core::fail(*error_);
  return std::move(samples_);
}

}  // namespace solscope::app
