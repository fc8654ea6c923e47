// Units of `solscope run`: the kernel log over a pipe (encoded frames in, exact trace rows out), the GPUs of
// a process tree, the sink's backlog, the metadata helpers and the child's exit status.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/derive.hpp"
#include "core/guarded_run.hpp"
#include "inject/kernel_wire.hpp"
#include "run/child_process.hpp"
#include "run/run_kernels.hpp"
#include "run/run_metadata.hpp"
#include "run/run_sink.hpp"
#include "run/run_usage.hpp"
#include "support/scratch_dir.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"
#include "workload/process_info.hpp"

namespace solscope::app {
namespace {

namespace fs = std::filesystem;

constexpr std::array<std::uint8_t, 16> kUuid0{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
                                              0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00};
constexpr std::array<std::uint8_t, 16> kUuid1{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
constexpr std::int64_t kRealtime = 1'767'225'600'000'000'000;  // 2026-01-01

class RunJobTest : public ::testing::Test {
 protected:
  testing::ScratchDir scratch_{"solscope-runjob"};
  const fs::path dir_ = scratch_.path();
};

auto kernel(std::uint32_t cuda, std::uint64_t start, std::uint64_t end, std::uint64_t correlation,
            std::string name) -> inject::Kernel {
  inject::Kernel k;
  k.start_cupti_ns = start;
  k.end_cupti_ns = end;
  k.correlation = correlation;
  k.cuda_device = cuda;
  k.stream = 13;
  k.grid = {64, 2, 1};
  k.block = {128, 1, 1};
  k.name = std::move(name);
  return k;
}

/// Writes one frame of `bodies` from process `pid` to `fd`.
void send(int fd, std::int32_t pid, const std::vector<inject::RecordBody>& bodies) {
  inject::FrameEncoder encoder(pid);
  for (const auto& body : bodies) ASSERT_TRUE(encoder.add(body));
  const auto frame = encoder.finish();
  ASSERT_EQ(::write(fd, frame.data(), frame.size()), static_cast<ssize_t>(frame.size()));
}

TEST_F(RunJobTest, the_kernel_log_turns_frames_from_a_pipe_into_exact_trace_rows) {
  const fs::path path = dir_ / "k.sqlite";
  auto writer = trace::Writer::open(path);
  ASSERT_TRUE(writer);
  ASSERT_TRUE(writer->set_kernel_log("cupti"));
  SharedWriter shared(*writer);
  std::array<int, 2> fds{};
  ASSERT_EQ(::pipe(fds.data()), 0);
  std::vector<std::uint32_t> devices_seen;
  // NVML: GPU 2 has kUuid0, GPU 5 has kUuid1.
  KernelLog log(fds[0], {{inject::gpu_uuid_string(kUuid0), 2}, {inject::gpu_uuid_string(kUuid1), 5}}, shared,
                [&](std::uint32_t d) { devices_seen.push_back(d); });
  log.start();
  // Process 100 sees CUDA devices 0 (kUuid1) and 1 (kUuid0); its CUPTI clock is 5 s behind realtime.
  send(fds[1], 100,
       {inject::Hello{13000, 130000}, inject::Device{0, kUuid1}, inject::Device{1, kUuid0},
        inject::Clock{1'000'000'000, kRealtime - 4'000'000'000}});
  send(
      fds[1], 100,
      {kernel(0, 2'000'000'000, 2'000'500'000, 1, "gemm"), kernel(1, 2'100'000'000, 2'100'001'000, 2, "copy"),
       kernel(7, 2'200'000'000, 2'200'001'000, 3, "on an unknown device")});
  // Process 200 sends a kernel before its clock (unmapped), then its clock, a kernel and its drop totals.
  send(fds[1], 200, {inject::Device{0, kUuid0}, kernel(0, 10, 20, 9, "too early")});
  send(fds[1], 200,
       {inject::Clock{500, kRealtime}, kernel(0, 1'500, 2'500, 10, "late"), inject::Dropped{3, 2},
        inject::Dropped{4, 2}});
  ::close(fds[1]);
  const KernelLogCounts counts = log.finish(5000);
  EXPECT_FALSE(log.error().has_value());
  EXPECT_EQ(counts.written, 3u);
  EXPECT_EQ(counts.unmapped, 2u);
  EXPECT_EQ(counts.dropped_by_job, 6u) << "the latest totals of process 200";
  EXPECT_EQ(counts.dropped_here, 0u);
  EXPECT_EQ(counts.dropped(), 8u);
  EXPECT_EQ(counts.processes, 2u);
  EXPECT_EQ(counts.clock_offset_ns, std::optional<std::int64_t>(kRealtime - 500));
  EXPECT_EQ(counts.wire_problem, "");
  EXPECT_EQ(devices_seen, (std::vector<std::uint32_t>{5, 2}));
  ASSERT_TRUE(writer->set_kernels_dropped(counts.dropped()));
  ASSERT_TRUE(writer->close());

  auto reader = trace::Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_EQ(reader->metadata().kernels_dropped, 8u);
  auto table = reader->kernels();
  ASSERT_TRUE(table);
  ASSERT_EQ(table->kernels.size(), 3u);
  const core::KernelRecord& late = table->kernels[2];  // kRealtime - 500 + 1500
  EXPECT_EQ(late.name, "late");
  EXPECT_EQ(late.device, 2u);
  EXPECT_EQ(late.pid, 200);
  EXPECT_EQ(late.start_ns, kRealtime + 1'000);
  EXPECT_EQ(late.end_ns, kRealtime + 2'000);
  const core::KernelRecord& gemm = table->kernels[0];  // offset kRealtime - 5 s
  EXPECT_EQ(gemm.name, "gemm");
  EXPECT_EQ(gemm.device, 5u);
  EXPECT_EQ(gemm.pid, 100);
  EXPECT_EQ(gemm.start_ns, kRealtime - 3'000'000'000);
  EXPECT_EQ(gemm.duration_ns(), 500'000);
  EXPECT_EQ(gemm.stream, 13u);
  EXPECT_EQ(gemm.correlation, 1u);
  EXPECT_EQ(gemm.grid, (std::array<std::uint32_t, 3>{64, 2, 1}));
  EXPECT_EQ(gemm.block, (std::array<std::uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(table->kernels[1].name, "copy");
  EXPECT_EQ(table->kernels[1].device, 2u);
  EXPECT_EQ(table->kernels[1].start_ns, kRealtime - 2'900'000'000);
}

TEST_F(RunJobTest, damaged_bytes_on_the_pipe_are_skipped_and_named) {
  auto writer = trace::Writer::open(dir_ / "k.sqlite");
  ASSERT_TRUE(writer);
  SharedWriter shared(*writer);
  std::array<int, 2> fds{};
  ASSERT_EQ(::pipe(fds.data()), 0);
  KernelLog log(fds[0], {{inject::gpu_uuid_string(kUuid0), 0}}, shared, {});
  log.start();
  ASSERT_EQ(::write(fds[1], "garbage!", 8), 8);
  send(fds[1], 1, {inject::Device{0, kUuid0}, inject::Clock{0, kRealtime}, kernel(0, 1, 2, 1, "k")});
  ::close(fds[1]);
  const auto counts = log.finish(5000);
  EXPECT_EQ(counts.written, 1u);
  EXPECT_NE(counts.wire_problem.find("kernel stream damaged at byte 0"), std::string::npos)
      << counts.wire_problem;
  ASSERT_TRUE(writer->close());
}

TEST_F(RunJobTest, a_full_queue_drops_the_oldest_records_and_counts_them) {
  auto writer = trace::Writer::open(dir_ / "k.sqlite");
  ASSERT_TRUE(writer);
  SharedWriter shared(*writer);
  std::array<int, 2> fds{};
  ASSERT_EQ(::pipe(fds.data()), 0);
  KernelLog log(fds[0], {{inject::gpu_uuid_string(kUuid0), 0}}, shared, {}, 4);
  // The trace is held: the writer thread cannot drain the queue while the pipe is read.
  std::uint64_t written = 0;
  {
    shared.with([&](trace::Writer&) {
      log.start();
      send(fds[1], 1, {inject::Device{0, kUuid0}, inject::Clock{0, kRealtime}});
      std::vector<inject::RecordBody> many;
      for (std::uint64_t i = 0; i < 40; ++i) many.emplace_back(kernel(0, i, i + 1, i, "k"));
      send(fds[1], 1, many);
      ::close(fds[1]);
      for (int i = 0; i < 10'000 && !log.reached_end_of_file(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      return 0;
    });
    const auto counts = log.finish(5000);
    written = counts.written;
    EXPECT_EQ(counts.written + counts.dropped_here, 40u);
    // The queue holds 4; the writer thread may have taken one batch (at most 4) before it blocked.
    EXPECT_GE(counts.dropped_here, 32u);
  }
  ASSERT_TRUE(writer->close());
  auto reader = trace::Reader::open(dir_ / "k.sqlite");
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->kernels()->kernels.size(), written);
}

TEST_F(RunJobTest, a_fault_in_the_kernel_logs_writer_is_booked_and_kept_and_the_job_goes_on) {
  auto writer = trace::Writer::open(dir_ / "k.sqlite");
  ASSERT_TRUE(writer);
  SharedWriter shared(*writer);
  std::array<int, 2> fds{};
  ASSERT_EQ(::pipe(fds.data()), 0);
  const std::size_t before = core::thread_faults().count();
  // Without guarded_run the exception leaves the writer's thread and std::terminate aborts this binary.
  KernelLog log(fds[0], {{inject::gpu_uuid_string(kUuid0), 0}}, shared,
                [](std::uint32_t) { throw std::runtime_error("on_device bug"); });
  log.start();
  send(fds[1], 1, {inject::Device{0, kUuid0}, inject::Clock{0, kRealtime}, kernel(0, 1, 2, 1, "k")});
  ::close(fds[1]);
  const KernelLogCounts counts = log.finish(5000);
  ASSERT_TRUE(log.error().has_value());
  EXPECT_EQ(log.error()->code, core::ErrorCode::Internal);
  EXPECT_EQ(log.error()->message, "the kernel log's trace writer stopped: on_device bug");
  EXPECT_EQ(core::thread_faults().count(), before + 1);
  std::size_t cursor = before;
  EXPECT_EQ(core::thread_faults().since(cursor),
            std::vector<std::string>{"the kernel log's trace writer stopped: on_device bug"});
  EXPECT_EQ(counts.wire_problem, "") << "the reader went on to the end of the pipe";
  EXPECT_TRUE(log.reached_end_of_file());
  ASSERT_TRUE(writer->close());
}

TEST(GpuUsageTest, finds_the_gpus_with_a_process_of_the_tree) {
  // GPU 0: a stranger (pid 9); GPU 1: the grandchild 12; GPU 2: nothing; then the child 11 starts on GPU 2.
  int round = 0;
  GpuUsage usage(
      {0, 1, 2},
      [&](std::uint32_t d) -> core::Result<std::vector<std::int32_t>> {
        if (d == 0) return std::vector<std::int32_t>{9};
        if (d == 1) return std::vector<std::int32_t>{12, 9};
        return round == 0 ? std::vector<std::int32_t>{} : std::vector<std::int32_t>{11};
      },
      [](std::int32_t root) {
        return std::vector<std::int32_t>{root, 11, 12};
      });
  EXPECT_EQ(usage.poll(10), (std::vector<std::uint32_t>{1}));
  round = 1;
  EXPECT_EQ(usage.poll(10), (std::vector<std::uint32_t>{2}));
  EXPECT_EQ(usage.poll(10), (std::vector<std::uint32_t>{}));
  EXPECT_EQ(usage.used(), (std::set<std::uint32_t>{1, 2}));
  EXPECT_FALSE(usage.error().has_value());
}

TEST(GpuUsageTest, a_failing_lister_is_kept_as_the_error) {
  GpuUsage usage(
      {0},
      [](std::uint32_t) -> core::Result<std::vector<std::int32_t>> {
        return core::fail(core::ErrorCode::Unavailable, "no NVIDIA driver found");
      },
      [](std::int32_t root) { return std::vector<std::int32_t>{root}; });
  EXPECT_TRUE(usage.poll(1).empty());
  ASSERT_TRUE(usage.error().has_value());
  EXPECT_EQ(usage.error()->message, "no NVIDIA driver found");
}

TEST(DescendantPidsTest, lists_children_and_grandchildren_from_proc) {
  const pid_t child = ::fork();
  if (child == 0) {
    const pid_t grandchild = ::fork();
    if (grandchild == 0) {
      ::pause();
      ::_exit(0);
    }
    ::pause();
    ::_exit(0);
  }
  ASSERT_GT(child, 0);
  std::vector<std::int32_t> tree;
  for (int i = 0; i < 1000 && tree.size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    tree = workload::descendant_pids("/proc", child);
  }
  ::kill(child, SIGKILL);
  for (const std::int32_t pid : tree) {
    if (pid != child) ::kill(pid, SIGKILL);
  }
  ::waitpid(child, nullptr, 0);
  ASSERT_EQ(tree.size(), 2u);
  EXPECT_EQ(tree[0], child);
  EXPECT_GT(tree[1], 0);
  EXPECT_EQ(workload::descendant_pids("/proc", 0x7ffffff0), (std::vector<std::int32_t>{0x7ffffff0}));
}

TEST_F(RunJobTest, the_sink_writes_a_gpu_with_its_backlog_once_the_job_uses_it) {
  const fs::path path = dir_ / "s.sqlite";
  auto writer = trace::Writer::open(path);
  ASSERT_TRUE(writer);
  SharedWriter shared(*writer);
  RunTraceSink sink(shared, true);
  core::DeviceInfo d0;
  d0.index = 0;
  d0.uuid = "GPU-0";
  core::DeviceInfo d1 = d0;
  d1.index = 1;
  d1.uuid = "GPU-1";
  ASSERT_TRUE(sink.begin({d0, d1}));
  auto sample = [](std::uint32_t device, std::int64_t n) {
    core::RawSample raw;
    raw.device_index = device;
    raw.t_start_ns = kRealtime + n * 10'000'000;
    raw.t_end_ns = raw.t_start_ns + 10'000'000;
    return raw;
  };
  for (std::int64_t n = 0; n < 3; ++n) {
    for (std::uint32_t d : {0u, 1u})
      ASSERT_TRUE(sink.on_sample(sample(d, n), core::derive(sample(d, n), d0)));
  }
  sink.use_device(1);
  for (std::uint32_t d : {0u, 1u}) ASSERT_TRUE(sink.on_sample(sample(d, 3), core::derive(sample(d, 3), d0)));
  EXPECT_EQ(sink.written_devices(), (std::set<std::uint32_t>{1}));
  EXPECT_EQ(sink.left_out_samples(), 4u) << "GPU 0's four samples";
  // A kernel on GPU 0 arrives after the last sample: its backlog is written at the end.
  ASSERT_TRUE(sink.write_late_backlogs());
  EXPECT_EQ(sink.left_out_samples(), 4u);
  sink.use_device(0);
  ASSERT_TRUE(sink.write_late_backlogs());
  EXPECT_EQ(sink.left_out_samples(), 0u);
  EXPECT_EQ(sink.used_devices(), (std::set<std::uint32_t>{0, 1}));
  ASSERT_TRUE(writer->close());
  auto reader = trace::Reader::open(path);
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->sample_count(), 8u);
  ASSERT_EQ(reader->devices().size(), 2u);
  EXPECT_EQ(reader->devices()[1].uuid, "GPU-1");
}

TEST(RunMetadataTest, quoting_summaries_and_exit_descriptions) {
  EXPECT_EQ(shell_quote({"python", "train.py", "--lr=0.1"}), "python train.py --lr=0.1");
  EXPECT_EQ(shell_quote({"sh", "-c", "echo $HOME; exit 3", "it's", ""}),
            "sh -c 'echo $HOME; exit 3' 'it'\\''s' ''");
  EXPECT_EQ(cuda_visible_summary(std::nullopt), "(unset)");
  EXPECT_EQ(cuda_visible_summary(std::string()), "(empty)");
  EXPECT_EQ(cuda_visible_summary(std::string("GPU-abc,1")), "GPU-abc,1");
  EXPECT_EQ(join_indices({3, 0, 1}), "0,1,3");
  EXPECT_EQ((ChildExit{3, 0}.solscope_code()), 3);
  EXPECT_EQ((ChildExit{0, SIGTERM}.solscope_code()), 143);
  EXPECT_EQ((ChildExit{3, 0}.describe()), "exit 3");
  EXPECT_EQ((ChildExit{0, SIGKILL}.describe()), "signal 9 (Killed)");
}

TEST_F(RunJobTest, the_child_inherits_only_the_kernel_pipe_and_runs_in_its_own_group) {
  std::array<int, 2> kept{};
  std::array<int, 2> closed{};
  ASSERT_EQ(::pipe2(kept.data(), O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(closed.data(), O_CLOEXEC), 0);
  const fs::path out = dir_ / "fds";
  const std::string script =
      "ls /proc/$$/fd > " + out.string() + "; echo $$ $(ps -o pgid= -p $$) >> " + out.string();
  auto child = ChildProcess::spawn({{"sh", "-c", script}, {"PATH=/usr/bin:/bin"}, "/usr/bin:/bin", kept[1]});
  ASSERT_TRUE(child) << child.error().describe();
  std::optional<ChildExit> exit;
  for (int i = 0; i < 1000 && !exit; ++i) {
    exit = child->poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(exit);
  EXPECT_EQ(exit->solscope_code(), 0);
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find(std::to_string(kept[1]) + "\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("\n" + std::to_string(closed[1]) + "\n"), std::string::npos) << text;
  const std::string pid = std::to_string(child->pid());
  EXPECT_NE(text.find(pid + " " + pid), std::string::npos) << "its pgid is its pid: " << text;
  for (int fd : {kept[0], kept[1], closed[0], closed[1]}) ::close(fd);
}

}  // namespace
}  // namespace solscope::app
