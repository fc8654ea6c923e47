// The calibrated kernels of `solscope check` (docs/accuracy.md): hand-written PTX carried in the binary, the
// launch shape each uses on a device, and the work one launch does, derived from the PTX loop and never from
// a counter. Pure: no I/O, no driver.
//
// Every kernel has the same parameter list, so one launcher runs them all:
//   .entry NAME(.param .u64 buffer_a, .param .u64 buffer_b, .param .u64 elements, .param .u32 iterations)
// buffer_a/buffer_b: device buffers of LaunchShape::buffer_bytes each (0 and unused by the compute kernels);
// elements: 64-bit words per buffer; iterations: the loop trip count of each thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/metric_id.hpp"
#include "core/result.hpp"

namespace solscope::check {

/// What a calibration phase exercises (one kernel each; Idle runs none).
enum class PhaseKind : std::uint8_t {
  Idle,
  Fma,          ///< FP32 FFMA chains: the FMA pipe near its peak
  TensorMma,    ///< BF16 mma.sync m16n8k16 from registers: the tensor pipe near its peak
  TensorWgmma,  ///< Hopper wgmma (sm_90a only)
  Alu,          ///< integer/logic chain: the ALU pipe
  Fp64,         ///< DFMA chains (GPUs with a fast FP64 pipe)
  DramCopy,     ///< streaming copy much larger than L2
  L2Copy,       ///< copy of a buffer smaller than L2, repeated
  LaunchBound,  ///< thousands of tiny kernels: utilization high, SM active low
  FmaHalfSms,   ///< the FMA kernel on half the SMs: utilization 100%, SM active and FMA near 50%
};

/// The device facts a launch shape and the expected figures need (from the driver and NVML).
struct DeviceFacts {
  std::uint32_t nvml_index = 0;
  int compute_capability = 0;  ///< major x 10 + minor: 80, 86, 89, 90, 100, 120
  std::uint32_t sm_count = 0;
  std::uint64_t l2_bytes = 0;
  std::string_view chip;  ///< CUPTI chip name ("GH100"), for the per-SM rates of the catalog/spec data
};

/// One launch configuration (1-D grid and block).
struct LaunchShape {
  std::uint32_t grid_blocks = 0;
  std::uint32_t block_threads = 0;
  std::uint32_t iterations = 0;    ///< loop trip count per thread
  std::uint64_t buffer_bytes = 0;  ///< bytes of each of buffer_a and buffer_b; 0 for compute kernels
};

/// One calibration kernel.
struct KernelSpec {
  PhaseKind phase = PhaseKind::Idle;
  std::string_view name;   ///< shown in the table: "fma", "mma_bf16", ...
  std::string_view entry;  ///< the PTX .entry name
  std::string_view ptx;    ///< PTX text, embedded at build time from src/check/kernels/*.ptx
  int min_compute_capability = 80;
  int max_compute_capability = 1000;  ///< e.g. 90 for wgmma (sm_90a only)
};

/// Every kernel, in phase order. Idle has no entry.
[[nodiscard]] auto kernel_specs() -> std::span<const KernelSpec>;

/// The launch shape of `kernel` on `device` (grid from the SM count, copy sizes from the L2 size), sized so
/// that one launch runs about `launch_target_ns` at the device's rates.
[[nodiscard]] auto launch_shape(const KernelSpec& kernel, const DeviceFacts& device,
                                std::int64_t launch_target_ns) -> LaunchShape;

/// What a phase did, as the runner and NVML measured it (never a counter).
struct PhaseMeasurement {
  LaunchShape shape;
  std::uint64_t launches = 0;
  std::int64_t gpu_elapsed_ns = 0;     ///< CUDA events around the launches
  double sm_clock_mhz = 0.0;           ///< NVML mean over the phase
  double dram_peak_bytes_per_s = 0.0;  ///< DeviceInfo::dram_peak_bytes_per_s
};

/// One figure a phase must show, with its tolerance (±3 points compute pipes, ±5 DRAM/L2).
struct ExpectedFigure {
  core::MetricId metric = core::MetricId::SmActive;
  double expected_pct = 0.0;
  double tolerance_pct = 0.0;
  std::string_view basis;  ///< the formula, for the table and docs/accuracy.md
};

/// The figures `kernel`'s phase must show: e.g. Fma → FmaPipe, SmActive; DramCopy → DramThroughput. Errors:
/// InvalidArgument for a measurement with no launches or time, NotFound when the chip has no per-SM rate.
[[nodiscard]] auto expected_figures(const KernelSpec& kernel, const DeviceFacts& device,
                                    const PhaseMeasurement& measured)
    -> core::Result<std::vector<ExpectedFigure>>;

}  // namespace solscope::check
