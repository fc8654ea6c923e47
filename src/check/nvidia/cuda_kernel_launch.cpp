// CudaKernelRunner's launch loop: buffers, back-to-back launches with a bounded queue, event timing, and what
// a failed driver call means for the phase (cuda_runner_state.hpp).
#include <cmath>
#include <string>

#include "check/nvidia/detail/cuda_runner_state.hpp"

namespace solscope::nvidia {
namespace {

constexpr std::uint64_t kBatchLaunches = 16;  ///< launches between two marker events
constexpr std::int64_t kPollNs = 50'000;      ///< sleep between two cuEventQuery calls

enum class Wait : std::uint8_t { Done, Failed, TimedOut };

// Polls `event` until it completes, fails or `deadline_ns` passes (cuEventSynchronize could block forever).
auto wait_event(CudaRunnerState& s, CUevent event, std::int64_t deadline_ns, CUresult& rc) -> Wait {
  for (;;) {
    rc = s.api->cu_event_query(event);
    if (rc == CUDA_SUCCESS) return Wait::Done;
    if (rc != CUDA_ERROR_NOT_READY) return Wait::Failed;
    if (s.clock.realtime_ns() >= deadline_ns) return Wait::TimedOut;
    s.clock.sleep_ns(kPollNs);
  }
}

auto shape_text(const check::LaunchShape& shape) -> std::string {
  return "grid " + std::to_string(shape.grid_blocks) + " x block " + std::to_string(shape.block_threads);
}

auto hung(CudaRunnerState& s, const check::KernelSpec& kernel) -> core::Unexpected<core::Error> {
  const std::string budget_s = std::to_string(s.options.wait_budget_ns / 1'000'000'000);
  s.hung = true;
  s.unusable =
      core::Error{core::ErrorCode::Unavailable,
                  s.label + " still runs kernel " + std::string(kernel.name) + ", which did not finish",
                  "check the GPU with nvidia-smi; the process may need to end before the GPU is free"};
  return core::fail(
      core::ErrorCode::Aborted,
      s.label + ": kernel " + std::string(kernel.name) + " did not finish within " + budget_s + " s",
      "the GPU may be hung (see the kernel log, dmesg, for an Xid); no further phase runs");
}

auto ensure_buffers(CudaRunnerState& s, const check::KernelSpec& kernel, const check::LaunchShape& shape)
    -> core::Result<void> {
  if (shape.buffer_bytes <= s.buffer_bytes) return core::ok();
  const CudaLaunchApi& api = *s.api;
  if (s.buffer_a != 0) (void)api.cu_mem_free(s.buffer_a);
  if (s.buffer_b != 0) (void)api.cu_mem_free(s.buffer_b);
  s.buffer_a = s.buffer_b = 0;
  s.buffer_bytes = 0;
  CUresult rc = api.cu_mem_alloc(&s.buffer_a, shape.buffer_bytes);
  if (rc == CUDA_SUCCESS) rc = api.cu_mem_alloc(&s.buffer_b, shape.buffer_bytes);
  if (rc == CUDA_SUCCESS) {
    s.buffer_bytes = shape.buffer_bytes;
    return core::ok();
  }
  if (s.buffer_a != 0) (void)api.cu_mem_free(s.buffer_a);
  s.buffer_a = 0;
  if (rc == CUDA_ERROR_OUT_OF_MEMORY) {
    return core::fail(core::ErrorCode::ResourceExhausted,
                      s.label + ": no room for the 2 x " + std::to_string(shape.buffer_bytes) +
                          " byte buffers of kernel " + std::string(kernel.name) + ": " + error_text(s, rc),
                      "free GPU memory (other processes hold it: nvidia-smi), then run solscope check again");
  }
  return run_failure(s, kernel, shape, "cuMemAlloc", rc);
}

// The maximum block size the driver allows for `function` (registers, shared memory), or 0 when unknown.
auto max_threads_per_block(const CudaRunnerState& s, CUfunction function) -> int {
  int value = 0;
  if (s.api->cu_func_get_attribute(&value, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function) !=
      CUDA_SUCCESS) {
    return 0;
  }
  return value;
}

struct Launcher {
  CudaRunnerState& s;
  const check::KernelSpec& kernel;
  CUfunction function;
  const check::LaunchShape& shape;

  auto launch() const -> CUresult {
    CUdeviceptr a = s.buffer_a;
    CUdeviceptr b = s.buffer_b;
    std::uint64_t elements = shape.buffer_bytes / sizeof(std::uint64_t);
    std::uint32_t iterations = shape.iterations;
    std::array<void*, 4> params{&a, &b, &elements, &iterations};
    return s.api->cu_launch_kernel(function, shape.grid_blocks, 1, 1, shape.block_threads, 1, 1, 0, nullptr,
                                   params.data(), nullptr);
  }

  auto fail(std::string_view call, CUresult rc) const -> core::Unexpected<core::Error> {
    if (rc == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES || rc == CUDA_ERROR_INVALID_VALUE) {
      const int limit = max_threads_per_block(s, function);
      if (limit > 0 && shape.block_threads > static_cast<std::uint32_t>(limit)) {
        return core::fail(core::ErrorCode::ResourceExhausted,
                          s.label + ": kernel " + std::string(kernel.name) + " cannot launch with " +
                              shape_text(shape) + ": at most " + std::to_string(limit) +
                              " threads per block fit its registers on this GPU: " + error_text(s, rc),
                          "this is a solscope bug in the launch shape: please report it with this message");
      }
    }
    return run_failure(s, kernel, shape, call, rc);
  }

  // After every kBatchLaunches launches: record a marker, first waiting for the one recorded two batches ago,
  // so that at most two batches are queued (the phase ends on time, not a queue's length later).
  auto mark_batch(std::uint64_t launches) const -> core::Result<void> {
    const std::size_t slot = (launches / kBatchLaunches) % 2;
    if (s.marker_recorded[slot]) {
      CUresult rc = CUDA_SUCCESS;
      const Wait wait = wait_event(s, s.markers[slot], s.clock.realtime_ns() + s.options.wait_budget_ns, rc);
      if (wait == Wait::TimedOut) return hung(s, kernel);
      if (wait == Wait::Failed) return fail("cuEventQuery", rc);
    }
    if (CUresult rc = s.api->cu_event_record(s.markers[slot], nullptr); rc != CUDA_SUCCESS) {
      return fail("cuEventRecord", rc);
    }
    s.marker_recorded[slot] = true;
    return core::ok();
  }
};

}  // namespace

auto run_failure(CudaRunnerState& s, const check::KernelSpec& kernel, const check::LaunchShape& shape,
                 std::string_view call, CUresult rc) -> core::Unexpected<core::Error> {
  const std::string what = "kernel " + std::string(kernel.name) + " (" + shape_text(shape) + ")";
  const std::string driver = error_text(s, rc) + " (from " + std::string(call) + ")";
  switch (classify_cuda_failure(rc)) {
    case CudaFailure::Fault: {
      auto fresh = recover_context(s);
      return core::fail(
          core::ErrorCode::Aborted, s.label + ": " + what + " faulted: " + driver,
          fresh ? "the phase is skipped and the other phases run on a fresh CUDA context; the kernel "
                  "log (dmesg) may show an Xid"
                : fresh.error().hint);
    }
    case CudaFailure::Lost:
      s.unusable = core::Error{core::ErrorCode::Unavailable,
                               s.label + " was lost while running " + what + ": " + driver,
                               "check the GPU with nvidia-smi and the kernel log (dmesg) for an Xid"};
      return core::fail(*s.unusable);
    case CudaFailure::Resources:
      return core::fail(core::ErrorCode::ResourceExhausted,
                        s.label + ": " + what + " needs more than the GPU offers: " + driver,
                        "free GPU memory or stop other work on this GPU, then run solscope check again");
    case CudaFailure::Other:
      break;
  }
  return core::fail(core::ErrorCode::Internal, s.label + ": " + what + ": " + driver,
                    "this is unexpected: please report it with this message");
}

auto run_phase(CudaRunnerState& s, const check::KernelSpec& kernel, CUfunction function,
               const check::LaunchShape& shape, std::int64_t duration_ns, const std::atomic<bool>* stop)
    -> core::Result<check::RunResult> {
  if (auto buffers = ensure_buffers(s, kernel, shape); !buffers) return core::propagate(std::move(buffers));
  const Launcher launcher{.s = s, .kernel = kernel, .function = function, .shape = shape};
  const CudaLaunchApi& api = *s.api;
  s.marker_recorded = {};
  if (CUresult rc = api.cu_event_record(s.timing[0], nullptr); rc != CUDA_SUCCESS) {
    return launcher.fail("cuEventRecord", rc);
  }
  check::RunResult result;
  result.wall_start_ns = s.clock.realtime_ns();
  auto stopped = [stop] { return stop != nullptr && stop->load(std::memory_order_relaxed); };
  while (!stopped() && (result.launches == 0 || s.clock.realtime_ns() - result.wall_start_ns < duration_ns)) {
    if (CUresult rc = launcher.launch(); rc != CUDA_SUCCESS) return launcher.fail("cuLaunchKernel", rc);
    ++result.launches;
    if (result.launches % kBatchLaunches == 0) {
      if (auto marked = launcher.mark_batch(result.launches); !marked)
        return core::propagate(std::move(marked));
    }
  }
  if (CUresult rc = api.cu_event_record(s.timing[1], nullptr); rc != CUDA_SUCCESS) {
    return launcher.fail("cuEventRecord", rc);
  }
  CUresult rc = CUDA_SUCCESS;
  const Wait wait = wait_event(s, s.timing[1], s.clock.realtime_ns() + s.options.wait_budget_ns, rc);
  if (wait == Wait::TimedOut) return hung(s, kernel);
  if (wait == Wait::Failed) return launcher.fail("cuEventQuery", rc);
  result.wall_end_ns = s.clock.realtime_ns();
  float elapsed_ms = 0.0F;
  if (rc = api.cu_event_elapsed_time(&elapsed_ms, s.timing[0], s.timing[1]); rc != CUDA_SUCCESS) {
    return launcher.fail("cuEventElapsedTime", rc);
  }
  // Every launch has completed, so this returns at once; it reports an error no event query saw.
  if (rc = api.cu_ctx_synchronize(); rc != CUDA_SUCCESS) return launcher.fail("cuCtxSynchronize", rc);
  result.gpu_elapsed_ns = std::llround(static_cast<double>(elapsed_ms) * 1e6);
  return result;
}

}  // namespace solscope::nvidia
