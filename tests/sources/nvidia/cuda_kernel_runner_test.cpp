// CudaKernelRunner against the fake CUDA driver (tests/support/fake_cuda_launch.hpp): loading, JIT failures,
// launch counts and event times, faults, a lost GPU, resource limits, bounded waits, and a missing libcuda.
// Synthetic: every time below is the fake's script, not a GPU measurement.
#include "check/nvidia/cuda_kernel_runner.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <memory>
#include <string>

#include "check/nvidia/detail/cuda_launch_api.hpp"
#include "support/fake_cuda_launch.hpp"

namespace solscope::nvidia {
namespace {

namespace fl = fake_launch;

constexpr const char* kBusId = "00000000:17:00.0";  // NVML's spelling; the fake CUDA prints "0000:17:00.0"

constexpr std::string_view kPtx =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry fma_test(.param .u64 a, .param .u64 b, .param .u64 n, .param .u32 it)\n{\n\tret;\n}\n"
    ".visible .entry copy_test(.param .u64 a, .param .u64 b, .param .u64 n, .param .u32 it)\n{\n\tret;\n}\n";
constexpr std::string_view kBadPtx =
    ".version 8.0\n.target sm_90a\n.address_size 64\n"
    ".visible .entry wgmma_test(.param .u64 a, .param .u64 b, .param .u64 n, .param .u32 it)\n{\n"
    "\tFAKE_SYNTAX_ERROR;\n}\n";

const check::KernelSpec kFma{.phase = check::PhaseKind::Fma, .name = "fma", .entry = "fma_test", .ptx = kPtx};
const check::KernelSpec kCopy{
    .phase = check::PhaseKind::DramCopy, .name = "dram_copy", .entry = "copy_test", .ptx = kPtx};
const check::KernelSpec kWgmma{.phase = check::PhaseKind::TensorWgmma,
                               .name = "mma_wgmma",
                               .entry = "wgmma_test",
                               .ptx = kBadPtx,
                               .min_compute_capability = 90,
                               .max_compute_capability = 90};
const check::LaunchShape kCompute{
    .grid_blocks = 132, .block_threads = 256, .iterations = 4096, .buffer_bytes = 0};
const check::LaunchShape kStream{
    .grid_blocks = 264, .block_threads = 512, .iterations = 1, .buffer_bytes = 1ULL << 30};

class CudaKernelRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override { fl::state().reset(); }

  static auto open(std::int64_t wait_budget_ns = 20'000'000'000)
      -> core::Result<std::unique_ptr<CudaKernelRunner>> {
    return CudaKernelRunner::open(
        std::make_shared<CudaLaunchApi>(fl::api()),
        {.nvml_index = 3, .pci_bus_id = kBusId, .chip = "GH100", .wait_budget_ns = wait_budget_ns},
        {.realtime_ns = fl::clock_now_ns, .sleep_ns = fl::clock_sleep_ns});
  }

  static auto open_loaded() -> std::unique_ptr<CudaKernelRunner> {
    auto runner = open();
    EXPECT_TRUE(runner.has_value()) << runner.error().describe();
    const std::array<check::KernelSpec, 2> specs{kFma, kCopy};
    auto loaded = (*runner)->load(specs);
    EXPECT_TRUE(loaded.has_value()) << loaded.error().describe();
    return std::move(*runner);
  }
};

TEST_F(CudaKernelRunnerTest, OpenReadsTheDeviceFactsOfTheBusId) {
  fl::state().cc_major = 8;
  fl::state().cc_minor = 6;
  fl::state().sm_count = 84;
  fl::state().l2_bytes = 6'291'456;
  auto runner = open();
  ASSERT_TRUE(runner.has_value()) << runner.error().describe();
  const check::DeviceFacts& facts = (*runner)->device();
  EXPECT_EQ(facts.nvml_index, 3U);
  EXPECT_EQ(facts.compute_capability, 86);
  EXPECT_EQ(facts.sm_count, 84U);
  EXPECT_EQ(facts.l2_bytes, 6'291'456U);
  EXPECT_EQ(facts.chip, "GH100");
  EXPECT_EQ(fl::state().contexts.size(), 1U);
}

TEST_F(CudaKernelRunnerTest, LoadsTheKernelsThatFitAndSkipsTheOthers) {
  fl::state().cc_major = 8;
  fl::state().cc_minor = 0;
  auto runner = open();
  ASSERT_TRUE(runner.has_value());
  const std::array<check::KernelSpec, 3> specs{kFma, kCopy, kWgmma};
  ASSERT_TRUE((*runner)->load(specs).has_value());
  EXPECT_EQ(fl::state().module_loads, 2);  // wgmma needs compute capability 9.0 exactly
  EXPECT_EQ(fl::state().jit_log_capacity, 16U * 1024U);
  auto skipped = (*runner)->run(kWgmma, kCompute, 10'000'000, nullptr);
  ASSERT_FALSE(skipped.has_value());
  EXPECT_EQ(skipped.error().code, core::ErrorCode::FailedPrecondition);
  EXPECT_EQ(skipped.error().message,
            "kernel mma_wgmma needs compute capability 90 to 90; GPU 3 "
            "(GPU-10111213-1415-1617-1819-1a1b1c1d1e1f) has 80");
  EXPECT_EQ(fl::state().launches, 0U);
}

TEST_F(CudaKernelRunnerTest, AJitFailureNamesTheKernelAndCarriesTheDriverLog) {
  auto runner = open();
  ASSERT_TRUE(runner.has_value());
  const std::array<check::KernelSpec, 2> specs{kWgmma, kFma};
  auto loaded = (*runner)->load(specs);
  ASSERT_FALSE(loaded.has_value());
  EXPECT_EQ(loaded.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(
      loaded.error().message,
      "GPU 3 (GPU-10111213-1415-1617-1819-1a1b1c1d1e1f) rejected the PTX of 1 kernel(s): kernel mma_wgmma: "
      "CUDA_ERROR_INVALID_PTX (218): a PTX JIT compilation failed; JIT log: ptxas application ptx input, "
      "line 5; error   : syntax error at 'FAKE_SYNTAX_ERROR'");
  // The other kernel still loaded and runs.
  auto ran = (*runner)->run(kFma, kCompute, 2'000'000, nullptr);
  ASSERT_TRUE(ran.has_value()) << ran.error().describe();
  EXPECT_EQ(ran->launches, 2U);
}

TEST_F(CudaKernelRunnerTest, RunLaunchesForTheDurationAndTimesWithEvents) {
  auto runner = open_loaded();
  fl::state().kernel_ns = 250'000;           // GPU time per launch
  fl::state().host_ns_per_launch = 250'000;  // the launch queue paces the host
  const std::int64_t start = fl::state().now_ns;
  auto ran = runner->run(kFma, kCompute, 10'000'000, nullptr);
  ASSERT_TRUE(ran.has_value()) << ran.error().describe();
  EXPECT_EQ(ran->launches, 40U);
  EXPECT_EQ(ran->gpu_elapsed_ns, 10'000'000);
  EXPECT_EQ(ran->wall_start_ns, start);
  EXPECT_EQ(ran->wall_end_ns, start + 10'000'000);
  EXPECT_EQ(fl::state().last_grid, 132U);
  EXPECT_EQ(fl::state().last_block, 256U);
  EXPECT_EQ(fl::state().last_iterations, 4096U);
  EXPECT_EQ(fl::state().last_elements, 0U);
  EXPECT_EQ(fl::state().allocs, 0);
  // Start and end events plus a marker after launches 16 and 32.
  EXPECT_EQ(fl::state().event_records, 4);
}

TEST_F(CudaKernelRunnerTest, WaitingForTheLastLaunchPollsAndCountsInTheWallTime) {
  auto runner = open_loaded();
  fl::state().queries_until_ready = 3;  // the end event answers NOT_READY three times
  const std::int64_t start = fl::state().now_ns;
  auto ran = runner->run(kFma, kCompute, 5'000'000, nullptr);
  ASSERT_TRUE(ran.has_value()) << ran.error().describe();
  EXPECT_EQ(ran->launches, 5U);
  EXPECT_EQ(ran->gpu_elapsed_ns, 5'000'000);
  EXPECT_EQ(fl::state().sleeps, 3);
  EXPECT_EQ(ran->wall_end_ns, start + 5'000'000 + 3 * 50'000);
}

TEST_F(CudaKernelRunnerTest, CopyBuffersAreAllocatedOnceAndGrowWhenAShapeNeedsMore) {
  auto runner = open_loaded();
  ASSERT_TRUE(runner->run(kCopy, kStream, 3'000'000, nullptr).has_value());
  EXPECT_EQ(fl::state().last_elements, (1ULL << 30) / 8);
  ASSERT_TRUE(runner->run(kCopy, kStream, 3'000'000, nullptr).has_value());
  EXPECT_EQ(fl::state().allocs, 2);
  check::LaunchShape bigger = kStream;
  bigger.buffer_bytes = 2ULL << 30;
  ASSERT_TRUE(runner->run(kCopy, bigger, 3'000'000, nullptr).has_value());
  EXPECT_EQ(fl::state().allocs, 4);
  EXPECT_EQ(fl::state().frees, 2);
  EXPECT_EQ(fl::state().launches, 9U);
}

TEST_F(CudaKernelRunnerTest, StopEndsThePhaseEarly) {
  auto runner = open_loaded();
  std::atomic<bool> stop{false};
  fl::state().stop_flag = &stop;
  fl::state().stop_at_launch = 7;
  auto ran = runner->run(kFma, kCompute, 1'000'000'000, &stop);
  ASSERT_TRUE(ran.has_value());
  EXPECT_EQ(ran->launches, 7U);
  EXPECT_EQ(ran->gpu_elapsed_ns, 7'000'000);
}

TEST_F(CudaKernelRunnerTest, AFaultAbortsThePhaseAndTheNextRunsOnAFreshContext) {
  auto runner = open_loaded();
  fl::state().fault_at_launch = 3;  // launch 3 faults; launch 4 reports it (sticky)
  auto faulted = runner->run(kFma, kCompute, 10'000'000, nullptr);
  ASSERT_FALSE(faulted.has_value());
  EXPECT_EQ(faulted.error().code, core::ErrorCode::Aborted);
  EXPECT_EQ(
      faulted.error().message,
      "GPU 3 (GPU-10111213-1415-1617-1819-1a1b1c1d1e1f): kernel fma (grid 132 x block 256) faulted: "
      "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered (from cuLaunchKernel)");
  EXPECT_EQ(fl::state().launches, 3U);
  EXPECT_EQ(fl::state().contexts.size(), 2U);
  EXPECT_EQ(fl::state().contexts_destroyed, 1);
  EXPECT_EQ(fl::state().module_loads, 4);  // both kernels reloaded into the fresh context

  auto next = runner->run(kCopy, kStream, 10'000'000, nullptr);
  ASSERT_TRUE(next.has_value()) << next.error().describe();
  EXPECT_EQ(next->launches, 10U);
  EXPECT_EQ(next->gpu_elapsed_ns, 10'000'000);
  EXPECT_EQ(fl::state().contexts.size(), 2U);
}

TEST_F(CudaKernelRunnerTest, AFaultTheDriverKeepsForTheProcessMakesLaterRunsUnavailable) {
  auto runner = open_loaded();
  fl::state().fault_at_launch = 2;
  fl::state().fault_result = CUDA_ERROR_LAUNCH_FAILED;
  fl::state().fault_is_process_wide = true;
  auto faulted = runner->run(kFma, kCompute, 10'000'000, nullptr);
  ASSERT_FALSE(faulted.has_value());
  EXPECT_EQ(faulted.error().code, core::ErrorCode::Aborted);
  EXPECT_NE(faulted.error().message.find("CUDA_ERROR_LAUNCH_FAILED (719)"), std::string::npos);
  EXPECT_NE(faulted.error().hint.find("run solscope check again"), std::string::npos);
  const int calls = fl::state().calls;
  auto next = runner->run(kCopy, kStream, 10'000'000, nullptr);
  ASSERT_FALSE(next.has_value());
  EXPECT_EQ(next.error().code, core::ErrorCode::Unavailable);
  EXPECT_NE(next.error().message.find("no fresh CUDA context after a kernel fault"), std::string::npos);
  EXPECT_EQ(fl::state().calls, calls);  // no driver call once the runner knows
  EXPECT_EQ(fl::state().launches, 2U);
}

TEST_F(CudaKernelRunnerTest, ALostGpuIsUnavailableForThisAndEveryLaterRun) {
  auto runner = open_loaded();
  fl::state().lost_at_launch = 4;
  auto lost = runner->run(kFma, kCompute, 10'000'000, nullptr);
  ASSERT_FALSE(lost.has_value());
  EXPECT_EQ(lost.error().code, core::ErrorCode::Unavailable);
  EXPECT_EQ(
      lost.error().message,
      "GPU 3 (GPU-10111213-1415-1617-1819-1a1b1c1d1e1f) was lost while running kernel fma (grid 132 x "
      "block 256): CUDA_ERROR_DEVICE_UNAVAILABLE (46): CUDA-capable device(s) is/are busy or unavailable "
      "(from cuLaunchKernel)");
  EXPECT_EQ(fl::state().contexts.size(), 1U);
  const int calls = fl::state().calls;
  auto again = runner->run(kFma, kCompute, 10'000'000, nullptr);
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().code, core::ErrorCode::Unavailable);
  EXPECT_EQ(fl::state().calls, calls);
}

TEST_F(CudaKernelRunnerTest, NoDeviceAtInitIsUnavailableWithTheDriversWords) {
  fl::state().init_result = CUDA_ERROR_NO_DEVICE;
  auto runner = open();
  ASSERT_FALSE(runner.has_value());
  EXPECT_EQ(runner.error().code, core::ErrorCode::Unavailable);
  EXPECT_EQ(runner.error().message,
            "the CUDA driver cannot start: CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected");
  EXPECT_TRUE(fl::state().contexts.empty());
}

TEST_F(CudaKernelRunnerTest, ABusIdCudaDoesNotSeeIsNotFound) {
  fl::state().bus_id = "0000:65:00.0";
  auto runner = open();
  ASSERT_FALSE(runner.has_value());
  EXPECT_EQ(runner.error().code, core::ErrorCode::NotFound);
  EXPECT_TRUE(fl::state().contexts.empty());
}

TEST_F(CudaKernelRunnerTest, ABlockTooLargeForTheKernelsRegistersIsAClearResourceError) {
  auto runner = open_loaded();
  fl::state().max_threads_per_block = 512;
  check::LaunchShape wide = kCompute;
  wide.block_threads = 1024;
  auto ran = runner->run(kFma, wide, 10'000'000, nullptr);
  ASSERT_FALSE(ran.has_value());
  EXPECT_EQ(ran.error().code, core::ErrorCode::ResourceExhausted);
  EXPECT_NE(
      ran.error().message.find("cannot launch with grid 132 x block 1024: at most 512 threads per block"),
      std::string::npos);
  EXPECT_EQ(fl::state().contexts.size(), 1U);  // not a fault: the context stays
  EXPECT_TRUE(runner->run(kFma, kCompute, 1'000'000, nullptr).has_value());
}

TEST_F(CudaKernelRunnerTest, BuffersThatDoNotFitAreAClearResourceError) {
  fl::state().memory_bytes = 1ULL << 30;
  auto runner = open_loaded();
  auto ran = runner->run(kCopy, kStream, 10'000'000, nullptr);
  ASSERT_FALSE(ran.has_value());
  EXPECT_EQ(ran.error().code, core::ErrorCode::ResourceExhausted);
  EXPECT_NE(ran.error().message.find("no room for the 2 x 1073741824 byte buffers of kernel dram_copy"),
            std::string::npos);
  EXPECT_EQ(fl::state().frees, 1);  // the first buffer is given back
  EXPECT_TRUE(fl::state().allocations.empty());
}

TEST_F(CudaKernelRunnerTest, LaunchesThatNeverFinishAbortWithinTheWaitBudget) {
  auto runner = open(1'000'000);
  ASSERT_TRUE(runner.has_value());
  const std::array<check::KernelSpec, 1> specs{kFma};
  ASSERT_TRUE((*runner)->load(specs).has_value());
  fl::state().queries_until_ready = 1'000'000'000;
  auto ran = (*runner)->run(kFma, kCompute, 2'000'000, nullptr);
  ASSERT_FALSE(ran.has_value());
  EXPECT_EQ(ran.error().code, core::ErrorCode::Aborted);
  EXPECT_NE(ran.error().message.find("kernel fma did not finish within"), std::string::npos);
  EXPECT_EQ(fl::state().sleeps, 20);  // 1 ms of 50 us polls
  auto again = (*runner)->run(kFma, kCompute, 2'000'000, nullptr);
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().code, core::ErrorCode::Unavailable);
  runner->reset();
  EXPECT_EQ(fl::state().contexts_destroyed, 0);  // a hung context is left to the process's end
}

// The real kernels of solscope check (src/check/kernels/*.ptx): every entry is found in its PTX, only the
// ones whose compute capability range fits are loaded, and each runs with its launch shape.
TEST_F(CudaKernelRunnerTest, EveryCheckKernelLoadsAndRunsWithItsShape) {
  auto runner = open();
  ASSERT_TRUE(runner.has_value());
  const auto specs = check::kernel_specs();
  ASSERT_TRUE((*runner)->load(specs).has_value());
  int fitting = 0;
  for (const auto& spec : specs) {
    if (spec.entry.empty() || spec.min_compute_capability > 90 || spec.max_compute_capability < 90) continue;
    ++fitting;
    const check::LaunchShape shape = check::launch_shape(spec, (*runner)->device(), 1'000'000);
    auto ran = (*runner)->run(spec, shape, 3'000'000, nullptr);
    ASSERT_TRUE(ran.has_value()) << spec.name << ": " << ran.error().describe();
    EXPECT_EQ(ran->launches, 3U) << spec.name;
    EXPECT_EQ(fl::state().last_elements, shape.buffer_bytes / 8) << spec.name;
  }
  EXPECT_GE(fitting, 7);
  EXPECT_EQ(fl::state().module_loads, fitting);
  EXPECT_EQ(fl::state().launches, static_cast<std::uint64_t>(3 * fitting));
}

TEST(CudaLaunchApi, AMissingLibcudaIsTheNoDriverMessage) {
  const std::array<std::string, 1> candidates{"libsolscope-no-such-cuda.so.1"};
  auto api = load_cuda_launch(candidates);
  ASSERT_FALSE(api.has_value());
  EXPECT_EQ(api.error().code, core::ErrorCode::Unavailable);
  EXPECT_EQ(api.error().message.rfind("no NVIDIA driver: cannot load libsolscope-no-such-cuda.so.1", 0), 0U);
  EXPECT_NE(api.error().hint.find("--gpus all"), std::string::npos);
}

TEST(CudaLaunchApi, FailuresAreClassifiedAsCudaHDescribesThem) {
  EXPECT_EQ(classify_cuda_failure(CUDA_ERROR_ILLEGAL_ADDRESS), CudaFailure::Fault);
  EXPECT_EQ(classify_cuda_failure(CUDA_ERROR_LAUNCH_FAILED), CudaFailure::Fault);
  EXPECT_EQ(classify_cuda_failure(CUDA_ERROR_MISALIGNED_ADDRESS), CudaFailure::Fault);
  EXPECT_EQ(classify_cuda_failure(CUDA_ERROR_NO_DEVICE), CudaFailure::Lost);
  EXPECT_EQ(classify_cuda_failure(CUDA_ERROR_DEVICE_UNAVAILABLE), CudaFailure::Lost);
  EXPECT_EQ(classify_cuda_failure(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES), CudaFailure::Resources);
  EXPECT_EQ(classify_cuda_failure(CUDA_ERROR_OUT_OF_MEMORY), CudaFailure::Resources);
  EXPECT_EQ(classify_cuda_failure(CUDA_ERROR_INVALID_VALUE), CudaFailure::Other);
}

TEST(CudaLaunchApi, AnErrorTheDriverCannotNameIsItsNumber) {
  const CudaLaunchApi api = fl::api();
  EXPECT_EQ(cuda_error_text(api, CUDA_ERROR_ILLEGAL_ADDRESS),
            "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered");
  EXPECT_EQ(cuda_error_text(api, CUDA_ERROR_TIMEOUT), "CUDA error 909");
}

}  // namespace
}  // namespace solscope::nvidia
