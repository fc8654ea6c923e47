// The sampling of `solscope check`: a sink of the one engine driver (BackgroundEngine) keeps every sample.
#include "check/run/detail/sample_collector.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/guarded_run.hpp"
#include "support/fake_counter_source.hpp"

namespace solscope::app {
namespace {

constexpr std::int64_t kMs = 1'000'000;

/// A live source that returns one numbered sample per poll (the poll's number as its start in ms) and, when
/// `fail_at` is set, an error at that poll. Driven by the engine's thread; read once finish() returned.
class NumberingSource : public testing::FakeCounterSource {
 public:
  NumberingSource() {
    never_finish = true;
    devices_list = {core::DeviceInfo{.index = 0}};
  }
  int fail_at = 0;
  mutable int status_reads = 0;
  auto poll() -> core::Result<std::vector<core::RawSample>> override {
    ++polls;
    if (polls == fail_at) return core::fail(core::ErrorCode::Unavailable, "counters went away", "retry");
    core::RawSample r;
    r.device_index = 0;
    r.t_start_ns = polls * kMs;
    r.t_end_ns = r.t_start_ns + kMs;
    r.set(core::MetricId::TensorPipe, 42.0);
    return std::vector<core::RawSample>{r};
  }
  auto status(std::uint32_t device) const -> sources::DeviceStatus override {
    ++status_reads;  // the engine's lost-device check after a poll
    return FakeCounterSource::status(device);
  }
};

TEST(SampleCollectorTest, keeps_the_sample_of_every_poll_in_order_through_the_engine) {
  NumberingSource source;
  SampleCollector collector(source, kMs);
  collector.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto samples = collector.finish();
  ASSERT_TRUE(samples) << samples.error().describe();
  EXPECT_GE(source.polls, 2) << "a poll at start and a last one at finish";
  ASSERT_EQ(samples->size(), static_cast<std::size_t>(source.polls)) << "none dropped";
  for (std::size_t i = 0; i < samples->size(); ++i) {
    EXPECT_EQ((*samples)[i].t_start_ns, static_cast<std::int64_t>(i + 1) * kMs);
    EXPECT_DOUBLE_EQ((*samples)[i].value(core::MetricId::TensorPipe), 42.0) << "raw, as polled";
  }
  EXPECT_GE(source.status_reads, 1) << "the engine asks after its polls whether a GPU was lost";
  EXPECT_FALSE(source.stopped) << "the caller stops the source";
}

TEST(SampleCollectorTest, a_poll_error_is_the_result) {
  NumberingSource source;
  source.fail_at = 1;
  SampleCollector collector(source, kMs);
  collector.start();
  auto samples = collector.finish();
  ASSERT_FALSE(samples);
  EXPECT_EQ(samples.error().code, core::ErrorCode::Unavailable);
  EXPECT_EQ(samples.error().message, "counters went away");
}

class ThrowingSource : public testing::FakeCounterSource {
 public:
  auto poll() -> core::Result<std::vector<core::RawSample>> override {
    throw std::runtime_error("driver exploded");
  }
};

TEST(SampleCollectorTest, an_exception_in_the_source_ends_the_sampling_with_its_reason) {
  const std::size_t before = core::thread_faults().count();
  ThrowingSource source;
  source.never_finish = true;
  SampleCollector collector(source, kMs);
  collector.start();
  auto samples = collector.finish();
  ASSERT_FALSE(samples);
  EXPECT_EQ(samples.error().code, core::ErrorCode::Internal);
  EXPECT_EQ(samples.error().message, "the check's sampling thread stopped: driver exploded");
  EXPECT_EQ(core::thread_faults().count(), before + 1);
}

TEST(SampleCollectorTest, finish_without_start_has_no_samples_and_never_polls) {
  NumberingSource source;
  SampleCollector collector(source, kMs);
  auto samples = collector.finish();
  ASSERT_TRUE(samples);
  EXPECT_TRUE(samples->empty());
  EXPECT_EQ(source.polls, 0);
}

}  // namespace
}  // namespace solscope::app
