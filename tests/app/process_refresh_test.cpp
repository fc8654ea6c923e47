// ProcessRefresher (issue 24): only the source's process lists are taken on the engine thread; procfs, the
// job mapping and core::attribute_gpu run on the refresher's thread, and the rows and workloads land in the
// LiveState, with on_change once per change. A fake source with a process lister and a SYNTHETIC /proc.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/live_feed.hpp"
#include "runtime/process_refresh.hpp"
#include "support/fake_counter_source.hpp"
#include "support/fake_proc_tree.hpp"

namespace solscope::app {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int32_t kAlicePid = 4001;
constexpr std::int32_t kBobPid = 4002;

template <typename Predicate>
auto eventually(Predicate done) -> bool {
  for (int i = 0; i < 500 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return done();
}

/// A fake source whose process lister counts its calls and remembers the thread they came on.
class ListingSource : public testing::FakeCounterSource {
 public:
  auto processes_on(std::uint32_t device) -> core::Result<std::vector<sources::DeviceProcess>> override {
    lister_thread = std::this_thread::get_id();
    ++lists;
    return FakeCounterSource::processes_on(device);
  }
  std::atomic<std::thread::id> lister_thread{};
  std::atomic<int> lists{0};
};

/// Threads and calls seen by the refresher's callbacks.
struct Seen {
  std::mutex mutex;
  std::vector<std::thread::id> user_name_threads;
  std::vector<std::thread::id> change_threads;
  std::vector<core::GpuWorkloads> changes;
  auto change_count() -> std::size_t {
    const std::scoped_lock lock(mutex);
    return changes.size();
  }
};

class ProcessRefreshTest : public ::testing::Test {
 protected:
  ProcessRefreshTest() {
    tree_.add({.pid = kAlicePid, .uid = 1000, .args = {"python3", "train.py", "--epochs", "3"}});
    tree_.add({.pid = kBobPid, .uid = 1001, .args = {"python3", "serve.py"}});
    source_.never_finish = true;
    source_.lists_processes = true;
    source_.processes[0] = {
        sources::DeviceProcess{.pid = kAlicePid, .gpu_memory_bytes = 1 << 30, .sm_pct = 30.0},
        sources::DeviceProcess{.pid = kBobPid, .gpu_memory_bytes = 2 << 20, .sm_pct = 60.0}};
    core::DeviceState device;
    device.info.index = 0;
    device.info.uuid = "GPU-11111111-2222-3333-4444-555555555555";
    device.info.name = "fake";
    state_.set_devices({device});
  }

  auto options() -> WorkloadRefreshOptions {
    return WorkloadRefreshOptions{
        .period = std::chrono::milliseconds(5),
        .procfs_root = tree_.root(),
        .kubelet_socket = "",  // not asked
        .job_mapping_dir = std::nullopt,
        .read_environ = true,
        .on_change =
            [this](std::uint32_t /*device*/, std::int64_t /*t_ns*/, const core::GpuWorkloads& workloads) {
              const std::scoped_lock lock(seen_.mutex);
              seen_.change_threads.push_back(std::this_thread::get_id());
              seen_.changes.push_back(workloads);
            },
        .user_name =
            [this](std::uint32_t uid) {
              const std::scoped_lock lock(seen_.mutex);
              seen_.user_name_threads.push_back(std::this_thread::get_id());
              return uid == 1000 ? std::string("alice") : std::string("bob");
            }};
  }

  testing::FakeProcTree tree_;
  ListingSource source_;
  core::LiveState state_;
  Seen seen_;
  const std::atomic<bool> external_stop_{false};
};

TEST_F(ProcessRefreshTest, rows_and_time_sliced_workloads_land_in_the_live_state) {
  BackgroundEngine engine(source_, {}, EngineOptions{.poll_interval_ns = kMs}, external_stop_);
  const ProcessRefresher refresher(engine, state_, {}, options());
  ASSERT_TRUE(eventually([&] { return state_.snapshot(0)->state.workloads.workloads.size() == 2; }));
  const core::DeviceState device = state_.snapshot(0)->state;
  ASSERT_EQ(device.processes.size(), 2U);
  EXPECT_EQ(device.processes[0].pid, kAlicePid);
  EXPECT_EQ(device.processes[0].user, "alice");
  EXPECT_EQ(device.processes[0].command, "python3 train.py --epochs 3");
  EXPECT_EQ(device.processes[0].gpu_memory_bytes, 1U << 30);
  EXPECT_EQ(device.processes[0].sm_pct, std::optional(30.0));
  EXPECT_EQ(device.processes[1].user, "bob");
  EXPECT_EQ(device.processes[1].sm_pct, std::optional(60.0));

  const core::GpuWorkloads& workloads = device.workloads;
  EXPECT_EQ(workloads.sharing, core::WorkloadSharing::kTimeSliced);
  EXPECT_EQ(workloads.workloads[0].id.user, "alice");
  EXPECT_EQ(workloads.workloads[0].pids, (std::vector<std::int32_t>{kAlicePid}));
  ASSERT_TRUE(workloads.workloads[0].fraction.has_value());
  EXPECT_DOUBLE_EQ(*workloads.workloads[0].fraction, 30.0 / 90.0);
  EXPECT_EQ(workloads.workloads[1].id.user, "bob");
  ASSERT_TRUE(workloads.workloads[1].fraction.has_value());
  EXPECT_DOUBLE_EQ(*workloads.workloads[1].fraction, 60.0 / 90.0);
}

TEST_F(ProcessRefreshTest, on_change_fires_once_per_change) {
  BackgroundEngine engine(source_, {}, EngineOptions{.poll_interval_ns = kMs}, external_stop_);
  const ProcessRefresher refresher(engine, state_, {}, options());
  ASSERT_TRUE(eventually([&] { return seen_.change_count() == 1; }));
  const int lists = source_.lists.load();
  ASSERT_TRUE(eventually([&] { return source_.lists.load() >= lists + 5; }));  // five unchanged refreshes
  EXPECT_EQ(seen_.change_count(), 1U);

  // Bob's process ends: the source's list changes on the engine thread, where the source lives.
  engine.post([this](sources::CounterSource& /*source*/) { source_.processes[0].pop_back(); });
  ASSERT_TRUE(eventually([&] { return seen_.change_count() == 2; }));
  const int after = source_.lists.load();
  ASSERT_TRUE(eventually([&] { return source_.lists.load() >= after + 5; }));
  EXPECT_EQ(seen_.change_count(), 2U);
  const std::scoped_lock lock(seen_.mutex);
  EXPECT_EQ(seen_.changes[0].sharing, core::WorkloadSharing::kTimeSliced);
  EXPECT_EQ(seen_.changes[1].sharing, core::WorkloadSharing::kExclusive);
  ASSERT_EQ(seen_.changes[1].workloads.size(), 1U);
  EXPECT_EQ(seen_.changes[1].workloads[0].id.user, "alice");
  EXPECT_EQ(seen_.changes[1].workloads[0].fraction, std::optional(1.0));
}

TEST_F(ProcessRefreshTest, procfs_and_attribution_run_off_the_engine_thread) {
  BackgroundEngine engine(source_, {}, EngineOptions{.poll_interval_ns = kMs}, external_stop_);
  {
    const ProcessRefresher refresher(engine, state_, {}, options());
    ASSERT_TRUE(eventually([&] { return seen_.change_count() >= 1; }));
  }
  const std::thread::id engine_thread = source_.lister_thread.load();
  ASSERT_NE(engine_thread, std::thread::id{});
  const std::scoped_lock lock(seen_.mutex);
  ASSERT_FALSE(seen_.user_name_threads.empty());
  // The uid -> name lookups (made while reading /proc/PID/status) and the change callback ran on one thread,
  // the refresher's: neither the engine's (where the list was taken) nor this test's.
  for (const auto id : seen_.user_name_threads) {
    EXPECT_NE(id, engine_thread);
    EXPECT_NE(id, std::this_thread::get_id());
  }
  EXPECT_EQ(seen_.change_threads.front(), seen_.user_name_threads.front());
}

TEST_F(ProcessRefreshTest, an_unreadable_job_mapping_dir_is_named_in_the_note) {
  auto refresh = options();
  refresh.job_mapping_dir = tree_.root() / "no-such-dir";
  BackgroundEngine engine(source_, {}, EngineOptions{.poll_interval_ns = kMs}, external_stop_);
  const ProcessRefresher refresher(engine, state_, {}, std::move(refresh));
  ASSERT_TRUE(eventually([&] { return !state_.snapshot(0)->state.workloads.workloads.empty(); }));
  const std::string note = state_.snapshot(0)->state.workloads.note;
  EXPECT_NE(note.find("job mapping: "), std::string::npos) << note;
  EXPECT_NE(note.find("no-such-dir"), std::string::npos) << note;
}

TEST_F(ProcessRefreshTest, node_facts_follow_the_switches_and_read_the_job_mapping_files) {
  auto refresh = options();
  refresh.read_environ = false;
  const std::filesystem::path jobs = tree_.root() / "jobs";
  std::filesystem::create_directories(jobs);
  std::ofstream(jobs / "1") << "4711\n\n4712\n";
  refresh.job_mapping_dir = jobs;
  const NodeFacts facts = gather_node_facts(refresh);
  EXPECT_FALSE(facts.node.pods.has_value());  // SOLSCOPE_KUBELET_SOCKET=off: the kubelet is not asked
  EXPECT_EQ(facts.node.kubelet_note, "kubelet PodResources switched off (SOLSCOPE_KUBELET_SOCKET=off)");
  EXPECT_FALSE(facts.node.read_environ);
  ASSERT_EQ(facts.node.jobs_by_gpu.size(), 1U);
  EXPECT_EQ(facts.node.jobs_by_gpu.at(1), (std::vector<std::string>{"4711", "4712"}));
  EXPECT_TRUE(facts.problems.empty()) << facts.problems;
}

TEST(SameWorkloadsTest, compares_sharing_and_shares_but_not_the_note) {
  core::GpuWorkloads a;
  a.sharing = core::WorkloadSharing::kExclusive;
  a.workloads.push_back(core::WorkloadShare{.id = {.user = "alice"}, .pids = {1}, .fraction = 1.0});
  core::GpuWorkloads b = a;
  b.note = "kubelet PodResources";
  EXPECT_TRUE(same_workloads(a, b));
  b.workloads[0].pids = {2};
  EXPECT_FALSE(same_workloads(a, b));
  EXPECT_FALSE(same_workloads(a, core::GpuWorkloads{}));
}

}  // namespace
}  // namespace solscope::app
