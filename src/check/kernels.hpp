// The calibrated kernels of `solscope check` (docs/accuracy.md): hand-written PTX carried in the binary, the
// launch shape each uses on a device, and the work one launch does, derived from the PTX loop and never from
// a counter. Pure: no I/O, no driver.
//
// Every kernel has the same parameter list, so one launcher runs them all:
//   .entry NAME(.param .u64 buffer_a, .param .u64 buffer_b, .param .u64 elements, .param .u32 iterations)
// buffer_a/buffer_b: device buffers of LaunchShape::buffer_bytes each (0 and unused by the compute kernels);
// elements: 64-bit words per buffer (buffer_bytes / 8); iterations: the loop trip count of each thread.
// iterations == 0xFFFFFFFF is reserved: it is the only value at which a kernel writes its sink.
//
// Which pipe each kernel loads, the instructions its loop executes and the per-SM rates the expected figures
// use: docs/accuracy.md.
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
  /// NVML marketing name ("NVIDIA H100 80GB HBM3"): picks the spec row where SKUs of one chip differ (the
  /// tensor rates of GeForce and data-centre AD102); may be empty.
  std::string_view name;
  double max_sm_clock_mhz = 0.0;       ///< NVML max SM clock; 0 = unknown (launch sizing assumes 1500 MHz)
  double dram_peak_bytes_per_s = 0.0;  ///< DeviceInfo::dram_peak_bytes_per_s; 0 = unknown (sizing only)
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
  std::string_view ptx_file;          ///< "fma.ptx": the file under src/check/kernels/
  /// The PTX mnemonic the loop counts ("fma.rn.f32"), between the "// counted: begin" and "// counted: end"
  /// markers of the PTX file; empty for a kernel with no counted loop (tiny).
  std::string_view counted_instruction;
  /// How many `counted_instruction`s one thread executes per loop iteration (per unrolled step for copy).
  /// The one place this figure lives: the expected figures use it and a test counts it in the PTX text.
  std::uint32_t instructions_per_iteration = 0;
  /// Work of one counted instruction of one thread, in the unit of the per-SM rate (check/detail/rates.hpp):
  /// 1 for FFMA, DFMA and LOP3; 128 FLOP for mma m16n8k16 (4096 FLOP per warp / 32 threads); 4096 FLOP for
  /// wgmma m64n256k16 (524,288 FLOP per warpgroup / 128 threads); 0 for copy and tiny.
  double work_per_instruction = 0.0;
  /// Threads per block: 1024 for the compute kernels (one block per SM), 256 for wgmma (two warpgroups), 512
  /// for copies, 32 for tiny.
  std::uint32_t block_threads = 0;
};

/// The idle phase's entry (no kernel, no PTX): pass it to expected_figures() for the idle figures.
[[nodiscard]] auto idle_spec() -> const KernelSpec&;

/// Whether `kernel` runs on `device`: its compute-capability range, and for Fp64 a fast FP64 pipe (DFMA at
/// least a quarter of the FFMA rate, check/detail/rates.hpp); GPUs with 1/64-rate FP64 skip that phase.
[[nodiscard]] auto kernel_runs_on(const KernelSpec& kernel, const DeviceFacts& device) -> bool;

/// Every kernel, in phase order. Idle has no entry.
[[nodiscard]] auto kernel_specs() -> std::span<const KernelSpec>;

/// The launch shape of `kernel` on `device` (grid from the SM count, copy sizes from the L2 size), sized so
/// that one launch runs about `launch_target_ns` at the device's rates. Compute kernels: blocks of
/// KernelSpec::block_threads, one per SM (grid = SMs, or SMs / 2 for FmaHalfSms); copies: 512-thread blocks
/// filling every SM, each buffer max(4 x L2, 256 MiB) in whole unrolled steps for DRAM, or L2 / 8 in whole
/// words per thread for L2; tiny: one 32-thread block.
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

/// How an expected figure is compared: a point (|measured - expected| <= tolerance) or a bound where a point
/// would be dishonest (launch-bound SM activity: at most one block's SM is ever active).
enum class Bound : std::uint8_t {
  Point,    ///< measured within expected ± tolerance
  AtMost,   ///< measured <= expected + tolerance
  AtLeast,  ///< measured >= expected - tolerance
};

/// Tolerances in percentage points (issue 11): compute pipes and SM activity ±3, DRAM/L2 ±5, and NVML's
/// classic utilisation ±5 (it is sampled by the driver, not counted).
inline constexpr double kComputeTolerancePct = 3.0;
inline constexpr double kMemoryTolerancePct = 5.0;
inline constexpr double kUtilTolerancePct = 5.0;

/// One figure a phase must show, with its tolerance (±3 points compute pipes, ±5 DRAM/L2).
struct ExpectedFigure {
  core::MetricId metric = core::MetricId::SmActive;
  double expected_pct = 0.0;
  double tolerance_pct = 0.0;
  /// The formula (docs/accuracy.md), for the JSON report; a pipe figure also names the per-SM rate it used
  /// and where that rate comes from (PerSmRates::source).
  std::string basis;
  Bound bound = Bound::Point;
};

/// Whether `measured_pct` satisfies `figure`; false for NaN (unknown).
[[nodiscard]] auto passes(const ExpectedFigure& figure, double measured_pct) -> bool;

/// The figures `kernel`'s phase must show: e.g. Fma → FmaPipe, SmActive; DramCopy → DramThroughput. Pipe
/// figures: 100 x work / (elapsed x SMs x per-SM rate x SM clock), work = launches x grid x block x
/// iterations x instructions_per_iteration x work_per_instruction; DRAM: 100 x bytes / (elapsed x peak). Idle
/// (idle_spec()) needs no launches. Errors: InvalidArgument for a measurement with no launches, time or
/// clock, NotFound when the chip has no per-SM rate for the kernel's pipe (or the DRAM peak is unknown).
[[nodiscard]] auto expected_figures(const KernelSpec& kernel, const DeviceFacts& device,
                                    const PhaseMeasurement& measured)
    -> core::Result<std::vector<ExpectedFigure>>;

}  // namespace solscope::check
