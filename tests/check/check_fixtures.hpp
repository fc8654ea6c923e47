#pragma once
// Shared by the tests of src/check: the kernel of a phase and the H100 SXM's facts (its spec sheet).
#include "check/kernels.hpp"

namespace solscope::check::testing {

/// The kernel table's entry for `phase`; idle_spec() when the table has none.
inline auto spec(PhaseKind phase) -> const KernelSpec& {
  for (const KernelSpec& k : kernel_specs()) {
    if (k.phase == phase) return k;
  }
  return idle_spec();
}

/// NVIDIA H100 80GB HBM3 (SXM): 132 SMs, 50 MiB L2, 1980 MHz max SM clock, 3.35 TB/s DRAM.
inline auto h100() -> DeviceFacts {
  return {.nvml_index = 0,
          .compute_capability = 90,
          .sm_count = 132,
          .l2_bytes = 50ULL << 20,
          .chip = "GH100",
          .name = "NVIDIA H100 80GB HBM3",
          .max_sm_clock_mhz = 1980.0,
          .dram_peak_bytes_per_s = 3.35e12};
}

}  // namespace solscope::check::testing
