// CudaKernelRunner: the NVIDIA implementation of check::KernelRunner over the CUDA driver API (CudaLaunchApi,
// dlopen'ed libcuda.so.1): JIT-loads the PTX of `solscope check`'s calibration kernels, launches them back to
// back for a phase and times them with CUDA events (docs/accuracy.md).
//
// Honest failure (issue 11, item 5): a kernel fault (illegal address, launch failure, the other sticky errors
// of cuda.h) ends that phase with Aborted; the runner destroys the context and creates a fresh one with the
// kernels reloaded, so later phases run. When the driver keeps the fault for the whole process (cuda.h: "the
// process must be terminated and relaunched") the fresh context cannot be made, and every later run says so
// (Unavailable). A lost GPU is Unavailable for this and every later run. Every wait is bounded
// (CudaKernelRunnerOptions::wait_budget_ns): a kernel that never finishes gives Aborted, not a hang.
//
// This header does not include cuda.h (the driver state is private), so the app's glue can name it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "check/kernel_runner.hpp"
#include "core/result.hpp"

namespace solscope::nvidia {

struct CudaLaunchApi;
struct CudaRunnerState;  // cuda_runner_state.hpp

/// Which GPU, and how long to wait for it.
struct CudaKernelRunnerOptions {
  std::uint32_t nvml_index = 0;
  std::string pci_bus_id;  ///< NVML's, e.g. "00000000:17:00.0": picks the CUDA device (cuda_ordinal_of)
  std::string chip;        ///< CUPTI chip name for DeviceFacts::chip ("GH100"); "" when unknown
  /// The longest wait for queued launches to finish, in ns (default 20 s). Past it the phase is Aborted and
  /// the runner refuses further runs (the GPU still runs the hung kernel).
  std::int64_t wait_budget_ns = 20'000'000'000;
};

/// The host clock and sleep the runner uses; tests replace them. Defaults: CLOCK_REALTIME in ns and
/// std::this_thread::sleep_for.
struct CudaRunnerClock {
  std::function<std::int64_t()> realtime_ns;
  std::function<void(std::int64_t ns)> sleep_ns;
};

class CudaKernelRunner;

/// Loads libcuda.so.1 (load_cuda_launch) and opens a runner on it with the real clock. Errors: those of
/// load_cuda_launch (Unavailable "no NVIDIA driver: ...") and CudaKernelRunner::open.
[[nodiscard]] auto open_cuda_kernel_runner(CudaKernelRunnerOptions options)
    -> core::Result<std::unique_ptr<CudaKernelRunner>>;

class CudaKernelRunner final : public check::KernelRunner {
 public:
  /// Initializes the driver (cuInit), finds the CUDA device with `options.pci_bus_id`, reads its facts
  /// (compute capability, SMs, L2 bytes) and creates a context. Errors: Unavailable when the driver finds no
  /// device or is unusable (CUDA_ERROR_NO_DEVICE, ..., with the driver's name for the error); NotFound when
  /// no CUDA device has the bus id (hidden by CUDA_VISIBLE_DEVICES); the driver's errors of cuCtxCreate.
  [[nodiscard]] static auto open(std::shared_ptr<const CudaLaunchApi> api, CudaKernelRunnerOptions options,
                                 CudaRunnerClock clock = {})
      -> core::Result<std::unique_ptr<CudaKernelRunner>>;

  CudaKernelRunner(const CudaKernelRunner&) = delete;
  auto operator=(const CudaKernelRunner&) -> CudaKernelRunner& = delete;
  ~CudaKernelRunner() override;

  [[nodiscard]] auto device() const -> const check::DeviceFacts& override;

  /// JIT-loads (cuModuleLoadDataEx, with a 16 KiB error log) every kernel with an entry whose compute
  /// capability range holds the device's; the others are skipped (run() then names the range). A PTX the
  /// driver rejects does not stop the others: the error (InvalidArgument) names each rejected kernel with
  /// the driver's error and its JIT log. Unavailable when the GPU is lost. Replaces earlier loads.
  [[nodiscard]] auto load(std::span<const check::KernelSpec> kernels) -> core::Result<void> override;

  /// Launches `kernel` (grid x block of `shape`, buffers of shape.buffer_bytes each, reused across runs)
  /// back to back on the default stream until `duration_ns` of CLOCK_REALTIME has passed since the first
  /// launch (at least one launch) or `stop` is set, with at most two batches of 16 launches queued, then
  /// waits for them. gpu_elapsed_ns comes from events recorded before the first and after the last launch.
  /// Errors: Aborted (a kernel fault, or launches that did not finish within the wait budget) naming the
  /// kernel and the driver's error; Unavailable (GPU lost, or the driver kept an earlier fault);
  /// ResourceExhausted (the launch or its buffers need more than the GPU has: the shape and the limit);
  /// FailedPrecondition (the kernel was not loaded, or its compute capability range excludes this GPU).
  [[nodiscard]] auto run(const check::KernelSpec& kernel, const check::LaunchShape& shape,
                         std::int64_t duration_ns, const std::atomic<bool>* stop)
      -> core::Result<check::RunResult> override;

 private:
  explicit CudaKernelRunner(std::unique_ptr<CudaRunnerState> state);
  std::unique_ptr<CudaRunnerState> state_;
};

}  // namespace solscope::nvidia
