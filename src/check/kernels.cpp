// The kernel table, which kernel runs where, and launch shapes (docs/accuracy.md, "The phases").
#include <algorithm>
#include <array>
#include <cmath>

#include "check/detail/embedded_ptx.hpp"
#include "check/detail/rates.hpp"
#include "check/kernels.hpp"

namespace solscope::check {
namespace {

constexpr std::uint64_t kWordBytes = 8;
constexpr std::uint64_t kMinDramBufferBytes = 256ULL << 20;
constexpr std::uint64_t kFallbackL2Bytes = 4ULL << 20;  // fits in the L2 of every GPU from Ampere on
constexpr double kFallbackClockMhz = 1500.0;
constexpr double kFallbackDramBytesPerS = 1e12;
constexpr double kL2OverDramSpeed = 3.0;  // sizing only: an L2 copy runs a few times faster than DRAM
constexpr std::uint32_t kMaxIterations = 0xFFFFFFFEU;  // 0xFFFFFFFF is the sink's reserved value

// Table rows: phase, name, entry, ptx (filled from the embedded files), cc range, file, counted mnemonic,
// per iteration, work per instruction, block threads. The counts match the "COUNTED" comment of each PTX
// file, and tests/check/ptx_count_test.cpp counts them there.
auto make_specs() -> std::array<KernelSpec, 9> {
  std::array<KernelSpec, 9> specs{{
      {PhaseKind::Fma, "fma", "solscope_fma", {}, 80, 1000, "fma.ptx", "fma.rn.f32", 128, 1.0, 1024},
      {PhaseKind::TensorMma,
       "mma_bf16",
       "solscope_mma_bf16",
       {},
       80,
       1000,
       "mma_bf16.ptx",
       "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
       32,
       4096.0 / 32.0,
       1024},
      {PhaseKind::TensorWgmma,
       "wgmma_bf16",
       "solscope_wgmma_bf16",
       {},
       90,
       90,
       "wgmma_bf16.ptx",
       "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
       4,
       64.0 * 256.0 * 16.0 * 2.0 / 128.0,
       256},
      {PhaseKind::Alu, "alu", "solscope_alu", {}, 80, 1000, "alu.ptx", "lop3.b32", 128, 1.0, 1024},
      {PhaseKind::Fp64, "dfma", "solscope_dfma", {}, 80, 1000, "dfma.ptx", "fma.rn.f64", 64, 1.0, 1024},
      {PhaseKind::DramCopy,
       "dram_copy",
       "solscope_copy",
       {},
       80,
       1000,
       "copy.ptx",
       "ld.global.u64",
       4,
       0.0,
       512},
      {PhaseKind::L2Copy, "l2_copy", "solscope_copy", {}, 80, 1000, "copy.ptx", "ld.global.u64", 4, 0.0, 512},
      {PhaseKind::LaunchBound, "launch_bound", "solscope_tiny", {}, 80, 1000, "tiny.ptx", "", 0, 0.0, 32},
      {PhaseKind::FmaHalfSms,
       "fma_half_sms",
       "solscope_fma",
       {},
       80,
       1000,
       "fma.ptx",
       "fma.rn.f32",
       128,
       1.0,
       1024},
  }};
  for (KernelSpec& spec : specs) spec.ptx = embedded_ptx(spec.ptx_file);
  return specs;
}

auto is_copy(PhaseKind phase) -> bool {
  return phase == PhaseKind::DramCopy || phase == PhaseKind::L2Copy;
}

/// Threads one SM holds: 1536 on cc 8.6, 8.7, 8.9 and 12.x, else 2048 (CUDA C++ Programming Guide, "Technical
/// Specifications per Compute Capability").
auto max_threads_per_sm(int compute_capability) -> std::uint32_t {
  const bool small = compute_capability == 86 || compute_capability == 87 || compute_capability == 89 ||
                     (compute_capability >= 120 && compute_capability < 130);
  return small ? 1536 : 2048;
}

/// Rate of the pipe `kernel` loads, per SM and clock, in the unit of work_per_instruction; a fallback guess
/// when the rates are unknown (sizing only).
auto sizing_rate(const KernelSpec& kernel, const DeviceFacts& device) -> double {
  auto rates = per_sm_rates(device);
  const auto known = [](double v, double fallback) { return std::isfinite(v) && v > 0 ? v : fallback; };
  switch (kernel.phase) {
    case PhaseKind::TensorMma:
    case PhaseKind::TensorWgmma:
      return known(rates ? rates->bf16_flop_per_clock : 0.0, 1024.0);
    case PhaseKind::Alu:
      return known(rates ? rates->lop3_per_clock : 0.0, 64.0);
    case PhaseKind::Fp64:
      return known(rates ? rates->dfma_per_clock : 0.0, 2.0);
    default:
      return known(rates ? rates->ffma_per_clock : 0.0, 128.0);
  }
}

auto clamp_iterations(double iterations) -> std::uint32_t {
  if (!(iterations >= 1.0)) return 1;
  return static_cast<std::uint32_t>(std::min(std::round(iterations), static_cast<double>(kMaxIterations)));
}

auto copy_shape(const KernelSpec& kernel, const DeviceFacts& device, std::int64_t launch_target_ns)
    -> LaunchShape {
  LaunchShape shape;
  shape.block_threads = kernel.block_threads;
  shape.grid_blocks = std::max<std::uint32_t>(1, device.sm_count) *
                      (max_threads_per_sm(device.compute_capability) / kernel.block_threads);
  const std::uint64_t step_bytes =
      std::uint64_t{kernel.instructions_per_iteration} * shape.grid_blocks * shape.block_threads * kWordBytes;
  const std::uint64_t l2_bytes = device.l2_bytes > 0 ? device.l2_bytes : kFallbackL2Bytes;
  if (kernel.phase == PhaseKind::DramCopy) {
    const std::uint64_t want = std::max(4 * l2_bytes, kMinDramBufferBytes);
    shape.buffer_bytes = (want + step_bytes - 1) / step_bytes * step_bytes;
  } else {
    // Whole words per thread, not whole steps: a step can exceed L2 / 8 on a small-L2 GPU (A10: 6 MB), and
    // the kernel's one-at-a-time tail copies what is left.
    const std::uint64_t unit_bytes = std::uint64_t{shape.grid_blocks} * shape.block_threads * kWordBytes;
    shape.buffer_bytes = std::max<std::uint64_t>(1, l2_bytes / 8 / unit_bytes) * unit_bytes;
  }
  double bytes_per_s =
      device.dram_peak_bytes_per_s > 0 ? device.dram_peak_bytes_per_s : kFallbackDramBytesPerS;
  if (kernel.phase == PhaseKind::L2Copy) bytes_per_s *= kL2OverDramSpeed;
  const double pass_s = 2.0 * static_cast<double>(shape.buffer_bytes) / bytes_per_s;
  shape.iterations = clamp_iterations(static_cast<double>(launch_target_ns) * 1e-9 / pass_s);
  return shape;
}

}  // namespace

auto kernel_specs() -> std::span<const KernelSpec> {
  static const std::array<KernelSpec, 9> kSpecs = make_specs();
  return kSpecs;
}

auto idle_spec() -> const KernelSpec& {
  static const KernelSpec kIdle{.phase = PhaseKind::Idle, .name = "idle"};
  return kIdle;
}

auto kernel_runs_on(const KernelSpec& kernel, const DeviceFacts& device) -> bool {
  if (kernel.phase == PhaseKind::Idle) return true;
  if (device.compute_capability < kernel.min_compute_capability ||
      device.compute_capability > kernel.max_compute_capability) {
    return false;
  }
  if (kernel.phase != PhaseKind::Fp64) return true;
  auto rates = per_sm_rates(device);
  return rates && std::isfinite(rates->dfma_per_clock) && rates->dfma_per_clock * 4 >= rates->ffma_per_clock;
}

auto launch_shape(const KernelSpec& kernel, const DeviceFacts& device, std::int64_t launch_target_ns)
    -> LaunchShape {
  if (is_copy(kernel.phase)) return copy_shape(kernel, device, launch_target_ns);
  LaunchShape shape;
  if (kernel.phase == PhaseKind::LaunchBound || kernel.phase == PhaseKind::Idle) {
    shape.grid_blocks = 1;
    shape.block_threads = std::max<std::uint32_t>(1, kernel.block_threads);
    shape.iterations = 1;
    return shape;
  }
  const std::uint32_t sms = std::max<std::uint32_t>(1, device.sm_count);
  shape.grid_blocks = kernel.phase == PhaseKind::FmaHalfSms ? std::max<std::uint32_t>(1, sms / 2) : sms;
  shape.block_threads = kernel.block_threads;
  const double clock_hz = (device.max_sm_clock_mhz > 0 ? device.max_sm_clock_mhz : kFallbackClockMhz) * 1e6;
  // One iteration of one block on its SM: block x per-iteration x work-per-instruction units of work.
  const double work_per_iteration = static_cast<double>(shape.block_threads) *
                                    kernel.instructions_per_iteration * kernel.work_per_instruction;
  const double iteration_s = work_per_iteration / (sizing_rate(kernel, device) * clock_hz);
  shape.iterations = clamp_iterations(static_cast<double>(launch_target_ns) * 1e-9 / iteration_s);
  return shape;
}

}  // namespace solscope::check
