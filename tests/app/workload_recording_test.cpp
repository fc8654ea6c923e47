// The recording's workload refresh (issue 24, runtime/workload_recording.hpp): the refresh's on_change writes
// the trace's workloads table, a source that lists no processes records none (and the trace says so), and the
// refresher runs beside the engine and is gone before it stops.
#include "runtime/workload_recording.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "support/fake_counter_source.hpp"
#include "support/scratch_dir.hpp"
#include "trace/reader.hpp"

namespace solscope::app {
namespace {

constexpr std::int64_t kMs = 1'000'000;

auto pod(const char* name) -> core::GpuWorkloads {
  const std::array<core::WorkloadAllocation, 1> allocation{
      core::WorkloadAllocation{.id = {.pod = name, .pod_namespace = "ml"}}};
  return core::attribute_gpu({}, allocation);
}

auto open_writer(const std::string& path) -> trace::Writer {
  auto writer = trace::Writer::open(path);
  EXPECT_TRUE(writer) << writer.error().describe();
  EXPECT_TRUE(writer->write_devices(std::vector<core::DeviceInfo>{core::DeviceInfo{.index = 0}}));
  return std::move(*writer);
}

TEST(WorkloadRecordingTest, on_change_writes_each_change_to_the_workloads_table) {
  testing::ScratchDir dir("workload-recording");
  const std::string path = dir.file("w.sqlite");
  trace::Writer writer = open_writer(path);
  const WorkloadRefreshOptions options = recording_refresh_options(writer, {});
  ASSERT_TRUE(options.on_change);
  options.on_change(0, 100 * kMs, pod("a"));
  options.on_change(0, 100 * kMs, pod("a"));  // unchanged: no row
  options.on_change(0, 300 * kMs, pod("b"));
  ASSERT_TRUE(writer.close());
  auto reader = trace::Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  auto table = reader->workloads();
  ASSERT_TRUE(table);
  ASSERT_EQ(table->rows.size(), 2u);
  EXPECT_EQ(table->rows[0].share.id.pod, "a");
  EXPECT_EQ(table->rows[0].t_start_ns, 100 * kMs);
  EXPECT_EQ(table->rows[0].t_end_ns, 300 * kMs);
  EXPECT_EQ(table->rows[1].share.id.pod, "b");
  EXPECT_EQ(table->rows[1].sharing, core::WorkloadSharing::kExclusive);
}

TEST(WorkloadRecordingTest, a_source_without_a_process_list_records_no_workloads) {
  testing::ScratchDir dir("workload-recording");
  const std::string path = dir.file("w.sqlite");
  trace::Writer writer = open_writer(path);
  testing::FakeCounterSource source;  // lists_processes = false: a replay, a dcgm-exporter
  WorkloadRecording recording(writer, source);
  EXPECT_FALSE(recording.active());
  EXPECT_FALSE(recording.companion());
  ASSERT_TRUE(writer.close());
  auto reader = trace::Reader::open(path);
  ASSERT_TRUE(reader);
  EXPECT_FALSE(reader->metadata().workload_refresh);
}

TEST(WorkloadRecordingTest, the_refresher_runs_beside_the_engine_and_ends_before_it) {
  testing::ScratchDir dir("workload-recording");
  const std::string path = dir.file("w.sqlite");
  trace::Writer writer = open_writer(path);
  testing::FakeCounterSource source;
  source.devices_list = {core::DeviceInfo{.index = 0}};
  source.lists_processes = true;
  source.processes[0] = {};
  source.generate = true;
  WorkloadRecording recording(writer, source, WorkloadRefreshOptions{.period = std::chrono::milliseconds(5)});
  ASSERT_TRUE(recording.active());
  const auto companion = recording.companion();
  ASSERT_TRUE(companion);
  const std::atomic<bool> stop{false};
  BackgroundEngine engine(source, {&recording.sink()}, EngineOptions{.poll_interval_ns = 5 * kMs}, stop);
  auto beside = companion(engine);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  beside.reset();  // joins the refresher's thread
  engine.stop();
  ASSERT_TRUE(engine.result().has_value());
  EXPECT_EQ(recording.status(), "");
  ASSERT_TRUE(writer.close());
  auto reader = trace::Reader::open(path);
  ASSERT_TRUE(reader);
  EXPECT_TRUE(reader->metadata().workload_refresh);
}

}  // namespace
}  // namespace solscope::app
