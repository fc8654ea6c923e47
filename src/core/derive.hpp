// derive(): from a RawSample to SOL figures. Pure: no I/O, no clock, no allocation.
#pragma once

#include "core/device_info.hpp"
#include "core/raw_sample.hpp"
#include "core/sol_sample.hpp"

namespace solscope::core {

/// A pipe or path at or above this percentage of its peak limits the workload. Source: Nsight Compute Kernel
/// Profiling Guide, "GPU Speed Of Light Throughput" section (its rule: above 60% the unit is likely the
/// limiter).
inline constexpr double kBoundThresholdPct = 60.0;

/// Below this GR-engine activity (or classic utilization where GR active is unknown) the GPU counts as idle.
inline constexpr double kIdleThresholdPct = 5.0;

/// Classifies what limits a GPU.
///
/// - Idle when `engine_active_pct` < kIdleThresholdPct;
/// - Compute or Memory when the larger of the two SOLs reaches kBoundThresholdPct (Compute on a tie);
/// - Latency (latency, launch or synchronisation bound) when the engine is busy and both SOLs are below it;
/// - Unknown when `engine_active_pct` and both SOLs are NaN, or the engine is busy and both SOLs are NaN.
/// Inputs are percentages; NaN = unknown.
[[nodiscard]] auto classify_bound(double compute_sol_pct, double memory_sol_pct, double engine_active_pct)
    -> Bound;

/// The Memory SOL that classify_bound(sample) weighs: the sample's Memory SOL, except when the tensor pipe
/// sets the Compute SOL and L1 sets the Memory SOL. L1/shared-memory traffic then is the tensor pipe's
/// operand feed (a BF16 GEMM on an H100 read 93% tensor and 95% L1, and 25% DRAM, 46% L2), so the larger of
/// DRAM and L2 counts instead (NaN when neither is known). docs/design/sol-metrics.md section 3.
[[nodiscard]] auto bound_memory_sol_pct(const SolSample& sample) -> double;

/// Classifies `sample` from its Compute SOL and bound_memory_sol_pct(), with GR active as the engine
/// activity, or the classic utilization when GR active is unknown (NaN). Used by derive() and by window
/// aggregation.
[[nodiscard]] auto classify_bound(const SolSample& sample) -> Bound;

/// Derives SOL figures from one raw sample.
///
/// Compute SOL = max over compute pipes (tensor, FMA and its heavy/lite halves, ALU and ALU-lite, FP64, FP16,
/// issue, LSU) of the pipe's percentage of peak; Memory SOL = max over DRAM, L2 and L1 (L1 = max of LSU
/// wavefronts and L1TEX throughput). This is the Utilyze definition (sampler.go) widened to L2 and to the
/// split pipes; see
/// docs/design/sol-metrics.md section 2. NaN inputs are skipped; a SOL with no known input is
/// NaN and names no pipe or path. Values over 100 are kept. `dram_bytes_per_s` = DRAM % / 100 x
/// `device.dram_peak_bytes_per_s`. The bound uses GR active, or the classic utilization when GR active is
/// unknown. Attainable SOL is copied from the raw sample (the app's ceiling model fills it there).
[[nodiscard]] auto derive(const RawSample& raw, const DeviceInfo& device) -> SolSample;

/// Percentage clamped to [0, 100] for display; NaN stays NaN.
[[nodiscard]] auto clamp_pct(double pct) -> double;

}  // namespace solscope::core
