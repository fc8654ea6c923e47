// TraceReplaySource: pacing on an injected clock, batches, device selection, pause, seek, loop, damaged
// traces.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "core/derive.hpp"
#include "data/synthetic/synthetic_trace.hpp"
#include "sources/replay/trace_replay_source.hpp"
#include "trace/schema.hpp"
#include "trace/trace_test_support.hpp"
#include "trace/writer.hpp"

namespace solscope::replay {
namespace {

using trace::testing::TempDir;

constexpr std::int64_t kMs = 1'000'000;
constexpr std::uint32_t kDevices = 3;
constexpr std::uint64_t kPerDevice = 100;

class TraceReplaySourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("t.sqlite");
    auto written = synthetic::write_trace(path_, kDevices, kPerDevice, 3);
    ASSERT_TRUE(written) << written.error().describe();
  }

  auto open(double speed, std::size_t max_batch = 4096, bool loop = false)
      -> std::unique_ptr<TraceReplaySource> {
    auto source = TraceReplaySource::open(
        path_,
        {.speed = speed, .loop = loop, .max_batch = max_batch, .steady_clock_ns = [this] { return now_; }});
    EXPECT_TRUE(source) << source.error().describe();
    return source ? std::move(*source) : nullptr;
  }

  auto poll(TraceReplaySource& source) -> std::vector<core::RawSample> {
    auto samples = source.poll();
    EXPECT_TRUE(samples) << samples.error().describe();
    return samples ? *samples : std::vector<core::RawSample>{};
  }

  TempDir dir_;
  std::filesystem::path path_;
  std::int64_t now_ = 5'000 * kMs;  // an arbitrary steady-clock origin
};

TEST_F(TraceReplaySourceTest, devices_and_metadata_come_from_the_trace) {
  auto source = open(1.0);
  ASSERT_TRUE(source);
  const auto devices = source->devices();
  ASSERT_EQ(devices.size(), kDevices);
  EXPECT_EQ(devices[2].uuid, synthetic::devices(kDevices)[2].uuid);
  EXPECT_TRUE(source->metadata().synthetic);
  EXPECT_EQ(source->status(1).source, core::SourceKind::Replay);
  EXPECT_NE(source->status(1).reason.find("synthetic"), std::string::npos);
  EXPECT_EQ(source->status(9).source, core::SourceKind::None);
  EXPECT_FALSE(source->finished());
}

TEST_F(TraceReplaySourceTest, real_time_pacing_follows_the_injected_clock) {
  auto source = open(1.0);
  ASSERT_TRUE(source);
  ASSERT_TRUE(source->start({}));
  EXPECT_TRUE(poll(*source).empty());  // nothing has ended yet
  now_ += 10 * kMs;
  auto first = poll(*source);
  ASSERT_EQ(first.size(), kDevices);  // interval 0 of every device ends at +10 ms
  for (std::uint32_t d = 0; d < kDevices; ++d) {
    EXPECT_EQ(first[d].device_index, d);
    EXPECT_EQ(first[d].t_start_ns, synthetic::kStartNs);
    EXPECT_EQ(first[d].source, core::SourceKind::Replay);
    EXPECT_EQ(first[d].flags & core::kSampleRecovered, 0u);
    EXPECT_EQ(first[d].value(core::MetricId::TensorPipe),
              synthetic::sample(d, 0, 3).value(core::MetricId::TensorPipe));
  }
  now_ += 9 * kMs;
  EXPECT_TRUE(poll(*source).empty());
  now_ += 1 * kMs;
  EXPECT_EQ(poll(*source).size(), kDevices);
  EXPECT_EQ(source->position_ns(), synthetic::kStartNs + 20 * kMs);
  now_ += 50 * kMs;
  EXPECT_EQ(poll(*source).size(), 5 * kDevices);
}

TEST_F(TraceReplaySourceTest, speed_two_plays_twice_as_fast) {
  auto source = open(2.0);
  ASSERT_TRUE(source);
  ASSERT_TRUE(source->start({}));
  now_ += 10 * kMs;
  EXPECT_EQ(poll(*source).size(), 2 * kDevices);
}

TEST_F(TraceReplaySourceTest, speed_zero_returns_bounded_batches_until_finished) {
  auto source = open(0.0, 70);
  ASSERT_TRUE(source);
  ASSERT_TRUE(source->start({}));
  std::size_t total = 0;
  std::int64_t last_start = 0;
  for (int i = 0; i < 10 && !source->finished(); ++i) {
    const auto batch = poll(*source);
    EXPECT_LE(batch.size(), 70u);
    for (const auto& s : batch) {
      EXPECT_GE(s.t_start_ns, last_start);
      last_start = s.t_start_ns;
    }
    total += batch.size();
  }
  EXPECT_EQ(total, kDevices * kPerDevice);
  EXPECT_TRUE(source->finished());
  EXPECT_TRUE(poll(*source).empty());
}

TEST_F(TraceReplaySourceTest, device_selection_is_honoured) {
  auto source = open(0.0);
  ASSERT_TRUE(source);
  ASSERT_TRUE(source->start({.devices = {1}}));
  ASSERT_EQ(source->devices().size(), 1u);
  EXPECT_EQ(source->devices()[0].index, 1u);
  const auto batch = poll(*source);
  ASSERT_EQ(batch.size(), kPerDevice);
  for (const auto& s : batch) EXPECT_EQ(s.device_index, 1u);
}

TEST_F(TraceReplaySourceTest, unknown_device_is_refused_with_the_list) {
  auto source = open(1.0);
  ASSERT_TRUE(source);
  auto started = source->start({.devices = {0, 7}});
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(started.error().message, "device 7 is not in trace " + path_.string() + " (it holds 0, 1, 2)");
}

TEST_F(TraceReplaySourceTest, pause_stops_the_clock_and_resume_continues) {
  auto source = open(1.0);
  ASSERT_TRUE(source);
  ASSERT_TRUE(source->start({}));
  now_ += 10 * kMs;
  EXPECT_EQ(poll(*source).size(), kDevices);
  source->pause();
  EXPECT_TRUE(source->paused());
  now_ += 1'000 * kMs;
  EXPECT_TRUE(poll(*source).empty());
  source->resume();
  EXPECT_TRUE(poll(*source).empty());
  now_ += 10 * kMs;
  const auto next = poll(*source);
  ASSERT_EQ(next.size(), kDevices);
  EXPECT_EQ(next[0].t_start_ns, synthetic::kStartNs + 10 * kMs);
}

TEST_F(TraceReplaySourceTest, speed_changes_while_playing_keep_the_position) {
  auto source = open(1.0);
  ASSERT_TRUE(source);
  ASSERT_TRUE(source->start({}));
  now_ += 10 * kMs;
  EXPECT_EQ(poll(*source).size(), kDevices);  // 10 ms of trace at x1
  ASSERT_TRUE(source->set_speed(4.0));
  now_ += 10 * kMs;
  const auto faster = poll(*source);
  ASSERT_EQ(faster.size(), 4 * kDevices);  // 40 ms of trace in 10 ms at x4
  EXPECT_EQ(faster.back().t_end_ns, synthetic::kStartNs + 50 * kMs);
  source->pause();
  ASSERT_TRUE(source->set_speed(1.0));
  now_ += 1'000 * kMs;
  EXPECT_TRUE(poll(*source).empty());
  source->resume();
  now_ += 10 * kMs;
  EXPECT_EQ(poll(*source).size(), kDevices);
  EXPECT_EQ(source->set_speed(-1.0).error().code, core::ErrorCode::InvalidArgument);
}

TEST_F(TraceReplaySourceTest, seek_jumps_to_a_trace_time) {
  auto source = open(1.0);
  ASSERT_TRUE(source);
  ASSERT_TRUE(source->start({}));
  ASSERT_TRUE(source->seek(synthetic::kStartNs + 50 * kMs));
  EXPECT_TRUE(poll(*source).empty());
  now_ += 10 * kMs;
  const auto batch = poll(*source);
  ASSERT_EQ(batch.size(), kDevices);
  EXPECT_EQ(batch[0].t_start_ns, synthetic::kStartNs + 50 * kMs);
  ASSERT_TRUE(source->seek(synthetic::kStartNs + 10'000 * kMs));  // past the end
  now_ += 1'000 * kMs;
  EXPECT_TRUE(poll(*source).empty());
  EXPECT_TRUE(source->finished());
}

TEST_F(TraceReplaySourceTest, loop_shifts_each_pass_by_the_trace_span) {
  auto source = open(0.0, kDevices * kPerDevice, /*loop=*/true);
  ASSERT_TRUE(source);
  ASSERT_TRUE(source->start({}));
  const auto first = poll(*source);
  ASSERT_EQ(first.size(), kDevices * kPerDevice);
  const auto second = poll(*source);
  ASSERT_EQ(second.size(), kDevices * kPerDevice);
  const std::int64_t span = static_cast<std::int64_t>(kPerDevice) * synthetic::kIntervalNs;
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(second[i].t_start_ns, first[i].t_start_ns + span);
    EXPECT_EQ(second[i].device_index, first[i].device_index);
  }
  EXPECT_FALSE(source->finished());
}

TEST_F(TraceReplaySourceTest, damaged_trace_flags_every_sample_recovered) {
  const auto bytes = trace::testing::read_bytes(path_);
  const auto cut = dir_.file("cut.sqlite");
  trace::testing::write_bytes(cut, bytes, bytes.size() - trace::kPageSizeBytes / 2);
  auto source = TraceReplaySource::open(cut, {.speed = 0.0});
  ASSERT_TRUE(source) << source.error().describe();
  EXPECT_TRUE((*source)->recovered());
  ASSERT_TRUE((*source)->start({}));
  const auto batch = poll(**source);
  ASSERT_FALSE(batch.empty());
  for (const auto& s : batch) EXPECT_NE(s.flags & core::kSampleRecovered, 0u);
  EXPECT_NE((*source)->status(0).reason.find("cut short"), std::string::npos) << (*source)->status(0).reason;
}

TEST_F(TraceReplaySourceTest, report_counts_one_pass_of_a_looping_replay_and_outlives_the_source) {
  trace::testing::run_sql(path_, "UPDATE sample_counters SET raw = x'00' WHERE sample_id IN (5, 6, 7);");
  auto source = open(0.0, 100, /*loop=*/true);
  ASSERT_TRUE(source);
  const auto report = source->report();
  EXPECT_FALSE(report->problem.has_value()) << "nothing read yet";
  ASSERT_TRUE(source->start({}));
  std::size_t returned = 0;
  while (returned < 2 * kDevices * kPerDevice + 50) returned += poll(*source).size();  // two passes and more
  source->stop();
  source.reset();
  EXPECT_EQ(report->read.samples, kDevices * kPerDevice);
  EXPECT_EQ(report->read.unknown_counters, 3u) << "once per pass, not once per loop";
  ASSERT_TRUE(report->problem.has_value());
  EXPECT_NE(
      report->problem->message.find("read 300 samples; 3 samples have unreadable counters (the first: id 5)"),
      std::string::npos)
      << report->problem->message;
}

TEST_F(TraceReplaySourceTest, misuse_and_bad_options_are_errors) {
  auto source = open(1.0);
  ASSERT_TRUE(source);
  auto early = source->poll();
  ASSERT_FALSE(early);
  EXPECT_EQ(early.error().code, core::ErrorCode::FailedPrecondition);
  ASSERT_TRUE(source->start({}));
  EXPECT_FALSE(source->start({}));
  source->stop();
  source->stop();
  EXPECT_FALSE(source->poll());

  auto negative = TraceReplaySource::open(path_, {.speed = -1.0});
  ASSERT_FALSE(negative);
  EXPECT_EQ(negative.error().code, core::ErrorCode::InvalidArgument);
  auto missing = TraceReplaySource::open(dir_.file("none.sqlite"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, core::ErrorCode::NotFound);
}

TEST(TraceReplayAttainableTest, recorded_attainable_sol_replays_with_each_sample) {
  TempDir dir;
  const auto path = dir.file("attainable.sqlite");
  auto writer = trace::Writer::open(path, {.synthetic = true, .source_description = "synthetic: test"});
  ASSERT_TRUE(writer);
  const auto devices = synthetic::devices(1);
  ASSERT_TRUE(writer->write_devices(devices));
  for (std::uint64_t n = 0; n < 3; ++n) {
    core::RawSample raw = synthetic::sample(0, n, 1);
    raw.attainable_compute_sol_pct = n == 1 ? core::kUnknown : 40.0 + static_cast<double>(n);
    raw.attainable_memory_sol_pct = 75.5;
    ASSERT_TRUE(writer->append(raw, core::derive(raw, devices[0])));
  }
  ASSERT_TRUE(writer->close());
  auto source = TraceReplaySource::open(path, {.speed = 0.0});
  ASSERT_TRUE(source);
  ASSERT_TRUE((*source)->start({}));
  auto batch = (*source)->poll();
  ASSERT_TRUE(batch);
  ASSERT_EQ(batch->size(), 3u);
  EXPECT_EQ((*batch)[0].attainable_compute_sol_pct, 40.0);
  EXPECT_TRUE(std::isnan((*batch)[1].attainable_compute_sol_pct)) << "unknown stays unknown, not 0";
  EXPECT_EQ((*batch)[2].attainable_compute_sol_pct, 42.0);
  EXPECT_EQ(core::derive((*batch)[2], devices[0]).attainable_memory_sol_pct, 75.5);
}

}  // namespace
}  // namespace solscope::replay
