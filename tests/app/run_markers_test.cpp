// `solscope run`'s NVTX part: the kernel log turns Marker frames into exact `markers` rows next to the
// kernels, and CMD's environment routes NVTX to the injection library unless the user set their own.
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "inject/kernel_wire.hpp"
#include "run/run_inject.hpp"
#include "run/run_kernels.hpp"
#include "run/run_sink.hpp"
#include "support/scratch_dir.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"

namespace solscope::app {
namespace {

namespace fs = std::filesystem;

constexpr std::array<std::uint8_t, 16> kUuid{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
                                             0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00};
constexpr std::int64_t kRealtime = 1'767'225'600'000'000'000;  // 2026-01-01

/// Writes one frame of `bodies` from process `pid` to `fd`.
void send(int fd, std::int32_t pid, const std::vector<inject::RecordBody>& bodies) {
  inject::FrameEncoder encoder(pid);
  for (const auto& body : bodies) ASSERT_TRUE(encoder.add(body));
  const auto frame = encoder.finish();
  ASSERT_EQ(::write(fd, frame.data(), frame.size()), static_cast<ssize_t>(frame.size()));
}

auto marker(std::uint64_t start, std::uint64_t end, std::uint32_t tid, std::uint32_t depth,
            std::string domain, std::string name) -> inject::Marker {
  return inject::Marker{.start_cupti_ns = start,
                        .end_cupti_ns = end,
                        .tid = tid,
                        .depth = depth,
                        .domain = std::move(domain),
                        .name = std::move(name)};
}

TEST(RunMarkersTest, the_kernel_log_writes_markers_on_the_samples_clock) {
  testing::ScratchDir scratch{"solscope-runmarkers"};
  const fs::path path = scratch.path() / "m.sqlite";
  auto writer = trace::Writer::open(path);
  ASSERT_TRUE(writer);
  ASSERT_TRUE(writer->set_kernel_log("cupti"));
  SharedWriter shared(*writer);
  std::array<int, 2> fds{};
  ASSERT_EQ(::pipe(fds.data()), 0);
  KernelLog log(fds[0], {{inject::gpu_uuid_string(kUuid), 0}}, shared, {});
  log.start();
  // Process 300: a marker before its clock (unmapped), then its clock (CUPTI 1 s = realtime kRealtime), a
  // step range holding a kernel, and a mark.
  send(fds[1], 300, {marker(10, 20, 1, 0, "", "too early")});
  send(fds[1], 300,
       {inject::Device{0, kUuid}, inject::Clock{1'000'000'000, kRealtime},
        marker(1'000'100'000, 1'000'900'000, 4711, 0, "", "step 1"),
        inject::Kernel{.start_cupti_ns = 1'000'200'000,
                       .end_cupti_ns = 1'000'300'000,
                       .correlation = 5,
                       .cuda_device = 0,
                       .stream = 7,
                       .grid = {1, 1, 1},
                       .block = {32, 1, 1},
                       .name = "gemm"},
        marker(1'000'500'000, 1'000'500'000, 4711, 1, "PyTorch", "grad ready")});
  ::close(fds[1]);
  const KernelLogCounts counts = log.finish(5000);
  EXPECT_FALSE(log.error().has_value());
  EXPECT_EQ(counts.written, 1u);
  EXPECT_EQ(counts.markers_written, 2u);
  EXPECT_EQ(counts.unmapped_markers, 1u);
  EXPECT_EQ(counts.dropped(), 0u) << "markers are not kernel records";
  ASSERT_TRUE(writer->close());

  auto reader = trace::Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  auto markers = reader->markers();
  ASSERT_TRUE(markers);
  EXPECT_TRUE(markers->present);
  ASSERT_EQ(markers->rows.size(), 2u);
  const core::MarkerRecord& step = markers->rows[0];
  EXPECT_EQ(step.pid, 300);
  EXPECT_EQ(step.tid, 4711u);
  EXPECT_EQ(step.start_ns, kRealtime + 100'000);
  EXPECT_EQ(step.end_ns, kRealtime + 900'000);
  EXPECT_EQ(step.depth, 0u);
  EXPECT_EQ(step.domain, "");
  EXPECT_EQ(step.name, "step 1");
  const core::MarkerRecord& mark = markers->rows[1];
  EXPECT_TRUE(mark.is_mark());
  EXPECT_EQ(mark.start_ns, kRealtime + 500'000);
  EXPECT_EQ(mark.depth, 1u);
  EXPECT_EQ(mark.domain, "PyTorch");
  auto kernels = reader->kernels();
  ASSERT_TRUE(kernels);
  ASSERT_EQ(kernels->kernels.size(), 1u);
  EXPECT_EQ(kernels->kernels[0].start_ns, kRealtime + 200'000) << "inside the step range, on one clock";
}

TEST(RunMarkersTest, nvtx_goes_to_the_injection_library_unless_the_user_set_their_own) {
  const KernelPipe pipe{-1, 9, "/opt/solscope/lib/solscope/libsolscope_inject.so"};
  using Env = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(pipe.environment(std::nullopt),
            (Env{{"CUDA_INJECTION64_PATH", "/opt/solscope/lib/solscope/libsolscope_inject.so"},
                 {"SOLSCOPE_KERNEL_FD", "9"},
                 {"NVTX_INJECTION64_PATH", "/opt/solscope/lib/solscope/libsolscope_inject.so"}}));
  EXPECT_EQ(nvtx_route(std::nullopt), "injection");
  // Nsight Systems' own, or an empty value set to switch NVTX off: kept (CMD inherits it), and said.
  for (const std::string user : {"/opt/nsys/libToolsInjection64.so", ""}) {
    EXPECT_EQ(pipe.environment(user),
              (Env{{"CUDA_INJECTION64_PATH", "/opt/solscope/lib/solscope/libsolscope_inject.so"},
                   {"SOLSCOPE_KERNEL_FD", "9"}}));
    EXPECT_EQ(nvtx_route(user), "user NVTX_INJECTION64_PATH=" + user);
  }
}

}  // namespace
}  // namespace solscope::app
