#include "runtime/engine.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "support/fake_counter_source.hpp"

namespace solscope::app {
namespace {

struct RecordingSink : SampleSink {
  std::vector<core::SolSample> samples;
  int flushes = 0;
  std::size_t devices_seen = 0;
  bool fail_on_second = false;
  auto begin(const std::vector<core::DeviceInfo>& devices) -> core::Result<void> override {
    devices_seen = devices.size();
    return core::ok();
  }
  auto on_sample(const core::RawSample&, const core::SolSample& sol) -> core::Result<void> override {
    if (fail_on_second && samples.size() == 1) return core::fail(core::ErrorCode::Unavailable, "disk full");
    samples.push_back(sol);
    return core::ok();
  }
  auto flush() -> core::Result<void> override {
    ++flushes;
    return core::ok();
  }
};

auto raw(std::uint32_t device, std::int64_t t, double tensor) -> core::RawSample {
  core::RawSample r;
  r.device_index = device;
  r.t_start_ns = t;
  r.t_end_ns = t + 10;
  r.set(core::MetricId::TensorPipe, tensor);
  return r;
}

TEST(EngineTest, derives_every_sample_until_the_source_finishes) {
  testing::FakeCounterSource source;
  source.devices_list = {core::DeviceInfo{.index = 0}, core::DeviceInfo{.index = 1}};
  source.batches.push_back(std::vector{raw(0, 0, 10), raw(1, 0, 20)});
  source.batches.push_back(std::vector{raw(0, 10, 30)});
  RecordingSink sink;
  std::ostringstream warnings;
  Engine engine(source, {&sink}, warnings);
  std::atomic<bool> stop{false};
  auto summary = engine.run(stop, EngineOptions{.poll_interval_ns = 1'000'000, .pace = false});
  ASSERT_TRUE(summary) << summary.error().describe();
  EXPECT_EQ(summary->samples, 3u);
  ASSERT_EQ(sink.samples.size(), 3u);
  EXPECT_EQ(sink.samples[1].compute_sol_pct, 20.0);
  EXPECT_EQ(sink.samples[1].compute_pipe, core::Pipe::Tensor);
  EXPECT_EQ(sink.devices_seen, 2u);
  EXPECT_GE(sink.flushes, 1)
      << "flushed whenever the sink's thread caught up, at least after the last sample";
}

TEST(EngineTest, source_error_stops_the_run) {
  testing::FakeCounterSource source;
  source.batches.push_back(std::vector{raw(0, 0, 10)});
  source.batches.push_back(core::fail(core::ErrorCode::Unavailable, "driver gone"));
  RecordingSink sink;
  std::ostringstream warnings;
  Engine engine(source, {&sink}, warnings);
  std::atomic<bool> stop{false};
  auto summary = engine.run(stop, EngineOptions{.pace = false});
  ASSERT_FALSE(summary);
  EXPECT_EQ(summary.error().message, "driver gone");
  EXPECT_EQ(sink.samples.size(), 1u);
}

TEST(EngineTest, sink_error_stops_the_run) {
  testing::FakeCounterSource source;
  source.batches.push_back(std::vector{raw(0, 0, 10), raw(0, 10, 10)});
  RecordingSink sink;
  sink.fail_on_second = true;
  std::ostringstream warnings;
  Engine engine(source, {&sink}, warnings);
  std::atomic<bool> stop{false};
  auto summary = engine.run(stop, EngineOptions{.pace = false});
  ASSERT_FALSE(summary);
  EXPECT_EQ(summary.error().message, "disk full");
}

TEST(EngineTest, a_lost_device_is_reported_once_and_others_continue) {
  testing::FakeCounterSource source;
  source.devices_list = {core::DeviceInfo{.index = 0, .uuid = "GPU-a"},
                         core::DeviceInfo{.index = 1, .uuid = "GPU-b"}};
  source.statuses[1] = sources::DeviceStatus{.lost = true};
  source.statuses[1].reason = "GPU has fallen off the bus";
  source.batches.push_back(std::vector{raw(0, 0, 10)});
  source.batches.push_back(std::vector{raw(0, 10, 10)});
  RecordingSink sink;
  std::ostringstream warnings;
  Engine engine(source, {&sink}, warnings);
  std::atomic<bool> stop{false};
  auto summary = engine.run(stop, EngineOptions{.pace = false});
  ASSERT_TRUE(summary);
  EXPECT_EQ(summary->lost, std::vector<std::uint32_t>{1});
  EXPECT_EQ(sink.samples.size(), 2u);
  const std::string text = warnings.str();
  EXPECT_NE(text.find("GPU 1 (GPU-b) stopped answering: GPU has fallen off the bus"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("stopped answering"), text.rfind("stopped answering")) << "reported once";
}

TEST(EngineTest, stop_flag_ends_a_live_run_after_a_final_poll) {
  testing::FakeCounterSource source;
  source.never_finish = true;
  RecordingSink sink;
  std::ostringstream warnings;
  Engine engine(source, {&sink}, warnings);
  std::atomic<bool> stop{true};
  auto summary = engine.run(stop, EngineOptions{});
  ASSERT_TRUE(summary);
  EXPECT_EQ(source.polls, 1) << "the final drain poll";
}

TEST(EngineTest, duration_bounds_a_live_run) {
  testing::FakeCounterSource source;
  source.never_finish = true;
  RecordingSink sink;
  std::ostringstream warnings;
  Engine engine(source, {&sink}, warnings);
  std::atomic<bool> stop{false};
  auto summary = engine.run(stop, EngineOptions{.poll_interval_ns = 5'000'000, .duration_ns = 30'000'000});
  ASSERT_TRUE(summary);
  EXPECT_GE(summary->polls, 3u);
  EXPECT_LE(summary->polls, 12u);
}

TEST(EngineTest, rejects_sub_millisecond_polling) {
  testing::FakeCounterSource source;
  std::ostringstream warnings;
  Engine engine(source, {}, warnings);
  std::atomic<bool> stop{false};
  auto summary = engine.run(stop, EngineOptions{.poll_interval_ns = 1000});
  ASSERT_FALSE(summary);
  EXPECT_EQ(summary.error().code, core::ErrorCode::InvalidArgument);
}

}  // namespace
}  // namespace solscope::app
