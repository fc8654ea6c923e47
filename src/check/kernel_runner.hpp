// KernelRunner: the one seam between `solscope check` and a GPU driver. The NVIDIA implementation (CUDA
// driver API over dlopen'ed libcuda.so.1) lives in src/sources/nvidia; tests use fakes. Vendor-neutral: no
// driver header here.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>

#include "check/kernels.hpp"
#include "core/result.hpp"

namespace solscope::check {

/// What one phase's launches took.
struct RunResult {
  std::uint64_t launches = 0;
  std::int64_t gpu_elapsed_ns = 0;  ///< CUDA events around all launches of the phase
  std::int64_t wall_start_ns = 0;   ///< CLOCK_REALTIME at the first launch (samples are on this clock)
  std::int64_t wall_end_ns = 0;     ///< CLOCK_REALTIME when the last launch completed
};

/// Runs calibration kernels on one GPU. Not thread-safe: one thread drives it.
class KernelRunner {
 public:
  virtual ~KernelRunner() = default;
  /// The device's facts (compute capability, SMs, L2).
  [[nodiscard]] virtual auto device() const -> const DeviceFacts& = 0;
  /// JIT-loads the kernels this device can run. Errors: Unavailable (driver), InvalidArgument (a PTX the
  /// driver rejects, with its JIT log).
  [[nodiscard]] virtual auto load(std::span<const KernelSpec> kernels) -> core::Result<void> = 0;
  /// Launches `kernel` with `shape` back to back for about `duration_ns` (or until `stop`), then
  /// synchronizes. Errors: Aborted for a kernel fault (illegal address, Xid): the runner then makes a fresh
  /// context, so later phases still run; Unavailable when the GPU is lost.
  [[nodiscard]] virtual auto run(const KernelSpec& kernel, const LaunchShape& shape, std::int64_t duration_ns,
                                 const std::atomic<bool>* stop) -> core::Result<RunResult> = 0;

 protected:
  KernelRunner() = default;
  KernelRunner(const KernelRunner&) = default;
  auto operator=(const KernelRunner&) -> KernelRunner& = default;
};

}  // namespace solscope::check
