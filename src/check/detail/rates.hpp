// Per-SM peak rates of the pipes the calibration kernels load, at one SM clock cycle, and where each comes
// from. Pure: the spec data is the copy of data/gpu_specs.json embedded in the binary (src/ceiling).
#pragma once

#include <string>

#include "check/kernels.hpp"
#include "core/result.hpp"

namespace solscope::check {

/// Peak issue rates of one SM per clock. NaN where no source gives the rate.
struct PerSmRates {
  double ffma_per_clock = 0.0;       ///< FP32 FFMA thread-instructions (= FP32 FLOP / 2)
  double dfma_per_clock = 0.0;       ///< FP64 DFMA thread-instructions on the FP64 (non-tensor) pipe
  double lop3_per_clock = 0.0;       ///< 32-bit logic thread-instructions on the ALU pipe
  double bf16_flop_per_clock = 0.0;  ///< dense BF16 tensor FLOP with FP32 accumulate
  std::string source;  ///< e.g. "data/gpu_specs.json H100-SXM5-80GB; CUDA Programming Guide ..."
};

/// The rates of `device`. FFMA, DFMA and BF16 come from the spec data (`flop_per_clock_per_sm`: fp32 / 2,
/// fp64 vector / 2, bf16), found by the NVML name, else by chip when every row of that chip agrees; FFMA and
/// DFMA fall back to the CUDA C++ Programming Guide's throughput table by compute capability, which is also
/// the only source of the ALU rate (64 results/clock/SM for 32-bit bitwise operations, cc 8.0-12.x). Errors:
/// NotFound when neither source knows the device's FFMA rate.
[[nodiscard]] auto per_sm_rates(const DeviceFacts& device) -> core::Result<PerSmRates>;

}  // namespace solscope::check
