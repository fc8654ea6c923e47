// The recording's workload refresh (issue 24, runtime/workload_recording.hpp): the refresh's on_change writes
// the trace's workloads table, a source that lists no processes records none (and the trace says so), and the
// refresher runs beside the engine and is gone before it stops.
#include "runtime/workload_recording.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "runtime/sinks.hpp"
#include "support/fake_counter_source.hpp"
#include "support/fake_proc_tree.hpp"
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

TEST(WorkloadRecordingTest, a_recording_keeps_the_workloads_the_refresh_found) {
  // End to end over the real ProcessRefresher: a fake source listing two time-sliced processes (30 and 60 %
  // SM) with a SYNTHETIC /proc, its samples into the trace, the refresh's change into its workloads table.
  testing::ScratchDir dir("workload-recording");
  const std::string path = dir.file("w.sqlite");
  trace::Writer writer = open_writer(path);
  testing::FakeProcTree tree;
  tree.add({.pid = 4001, .uid = 1000, .args = {"python3", "train.py"}});
  tree.add({.pid = 4002, .uid = 1001, .args = {"python3", "serve.py"}});
  testing::FakeCounterSource source;
  source.devices_list = {core::DeviceInfo{.index = 0}};
  source.lists_processes = true;
  source.generate = true;
  source.processes[0] = {sources::DeviceProcess{.pid = 4001, .sm_pct = 30.0},
                         sources::DeviceProcess{.pid = 4002, .sm_pct = 60.0}};
  WorkloadRefreshOptions options{
      .period = std::chrono::milliseconds(5),
      .procfs_root = tree.root(),
      .kubelet_socket = "",
      .user_name = [](std::uint32_t uid) { return uid == 1000 ? std::string("alice") : std::string("bob"); }};
  WorkloadRecording recording(writer, source, std::move(options));
  ASSERT_TRUE(recording.active());
  TraceSink sink(writer);
  {
    const std::atomic<bool> stop{false};
    BackgroundEngine engine(source, {&sink, &recording.sink()}, EngineOptions{.poll_interval_ns = 5 * kMs},
                            stop);
    auto beside = recording.companion()(engine);
    for (int i = 0; i < 500 && writer.workload_rows() < 2; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    beside.reset();  // joins the refresher's thread, before the engine stops
    engine.stop();
    ASSERT_TRUE(engine.result().has_value());
  }
  EXPECT_EQ(recording.status(), "");
  ASSERT_TRUE(writer.close());
  auto reader = trace::Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_TRUE(reader->metadata().workload_refresh);
  auto table = reader->workloads();
  ASSERT_TRUE(table);
  ASSERT_EQ(table->rows.size(), 2u);
  const auto span = reader->time_span();
  ASSERT_TRUE(span && *span);
  for (const auto& row : table->rows) {
    EXPECT_EQ(row.sharing, core::WorkloadSharing::kTimeSliced);
    EXPECT_GT(row.t_start_ns, 0) << "the sample clock's time, not 0";
    EXPECT_EQ(row.t_end_ns, (*span)->second) << "ended at the last sample's end";
  }
  EXPECT_EQ(table->rows[0].share.id.user, "alice");
  EXPECT_EQ(table->rows[0].share.pids, std::vector<std::int32_t>{4001});
  EXPECT_DOUBLE_EQ(table->rows[0].share.fraction.value_or(-1), 30.0 / 90.0);
  EXPECT_EQ(table->rows[1].share.id.user, "bob");
  EXPECT_DOUBLE_EQ(table->rows[1].share.fraction.value_or(-1), 60.0 / 90.0);
}

}  // namespace
}  // namespace solscope::app
