// The private state of CudaKernelRunner and the helpers its two .cpp files share (cuda_kernel_runner.cpp:
// open, contexts, modules; cuda_kernel_launch.cpp: the launch loop). Not for other files.
#pragma once

#include <cuda.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "check/kernels.hpp"
#include "check/nvidia/cuda_kernel_runner.hpp"
#include "check/nvidia/detail/cuda_launch_api.hpp"
#include "core/result.hpp"

namespace solscope::nvidia {

/// One JIT-loaded kernel of the current context.
struct LoadedKernel {
  std::string entry;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
};

/// The runner's driver state (CudaKernelRunner holds it behind a pointer).
struct CudaRunnerState {
  std::shared_ptr<const CudaLaunchApi> api;
  CudaKernelRunnerOptions options;
  CudaRunnerClock clock;
  check::DeviceFacts facts;  ///< facts.chip views options.chip
  std::string label;         ///< "GPU 0 (GPU-5fd3...)" for messages
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::vector<check::KernelSpec> specs;  ///< what load() asked for, reloaded into a fresh context
  std::vector<LoadedKernel> loaded;
  CUdeviceptr buffer_a = 0;
  CUdeviceptr buffer_b = 0;
  std::uint64_t buffer_bytes = 0;         ///< size of each buffer; 0 = none allocated
  std::array<CUevent, 2> timing{};        ///< start and end of a phase (timing enabled)
  std::array<CUevent, 2> markers{};       ///< batch ends (CU_EVENT_DISABLE_TIMING), ping-pong
  std::array<bool, 2> marker_recorded{};  ///< whether markers[i] has work to wait for
  std::optional<core::Error> unusable;    ///< set when the GPU is lost, hung or keeps a fault
  bool hung = false;                      ///< launches never finished: do not touch the context
};

/// Whether `kernel`'s compute capability range holds the device's.
[[nodiscard]] auto fits(const check::KernelSpec& kernel, const check::DeviceFacts& facts) -> bool;

/// The driver's error as text (cuda_error_text of the state's table).
[[nodiscard]] auto error_text(const CudaRunnerState& s, CUresult rc) -> std::string;

/// Destroys the context (and with it modules, buffers and events) and creates a fresh one with the kernels
/// reloaded. Ok when the fresh context works; otherwise the reason, and `s.unusable` is set.
[[nodiscard]] auto recover_context(CudaRunnerState& s) -> core::Result<void>;

/// The error of a failed driver call `call` while running `kernel`, after acting on it: a fault recovers the
/// context (Aborted), a lost GPU marks the runner unusable (Unavailable), a resource limit names the shape
/// (ResourceExhausted), anything else is Internal.
[[nodiscard]] auto run_failure(CudaRunnerState& s, const check::KernelSpec& kernel,
                               const check::LaunchShape& shape, std::string_view call, CUresult rc)
    -> core::Unexpected<core::Error>;

/// Runs the launch loop of CudaKernelRunner::run() (cuda_kernel_launch.cpp).
[[nodiscard]] auto run_phase(CudaRunnerState& s, const check::KernelSpec& kernel, CUfunction function,
                             const check::LaunchShape& shape, std::int64_t duration_ns,
                             const std::atomic<bool>* stop) -> core::Result<check::RunResult>;

}  // namespace solscope::nvidia
