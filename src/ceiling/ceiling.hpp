// The attainable-SOL ceiling: the best Compute SOL and Memory SOL a workload can reach on its hardware, the
// time split by operator and by limiting resource, and MFU.
//
// Source: docs/design/ceiling-model.md section 2.6: SOL_attainable = sum_op padded_FLOPs_op /
// rate_dtype(op) / sum_op t_op, with t_op from the efficiency terms of 2.5 (efficiency.hpp). Compute SOL here
// is the busy fraction of the pipe that runs the GEMMs and attention (the tensor pipe; the FMA pipe for
// FP32), at the evaluation clock, which is what the `sm__pipe_tensor_cycles_active` counter measures (section
// 0). Non-tensor work (norms, RoPE, activations) adds time but no tensor-busy time (2.5 item 7).
//
// Example:
//   auto db = parse_gpu_database(default_gpu_specs_json(), "built-in GPU specs");
//   auto gpu = find_gpu(*db, "H100");
//   auto arch = parse_model_config(text, "config.json");
//   Workload w{.step = *make_step(Phase::Decode, 64, 1024, 0)};
//   auto c = evaluate(*db, **gpu, *arch, w);   // c->compute_sol_pct, c->limiter, c->ops
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ceiling/detail/operators.hpp"
#include "ceiling/gpu_spec.hpp"
#include "ceiling/model_arch.hpp"
#include "ceiling/workload.hpp"
#include "core/limiter.hpp"
#include "core/result.hpp"

namespace solscope::ceiling {

/// The resource a kernel's modelled time is attributed to (core/limiter.hpp, shared with the live samples
/// that carry the attainable SOL): t = t0 + max(compute, memory) per kernel (2.5), so t0 goes to Overhead and
/// the larger of the two to Compute or Memory; all-reduces go to Interconnect. core::to_string spells it
/// ("compute", "memory", "kernel_overhead", "interconnect").
using Limiter = core::Limiter;
using core::kLimiterCount;
using core::to_string;

/// One operator's share of a step on one GPU, summed over its kernels (all layers, and forward plus backward
/// when training). Seconds and bytes per step.
struct OpCost {
  std::string_view name;
  OpKind kind = OpKind::Memory;
  Dtype math = Dtype::Bf16;
  double kernels = 0;           ///< kernel launches per step
  double flops = 0;             ///< useful FLOPs
  double padded_flops = 0;      ///< FLOPs the compute pipe executes, tile padding included
  double dram_bytes = 0;        ///< DRAM traffic
  double weight_bytes = 0;      ///< weights among dram_bytes
  double busy_s = 0;            ///< compute-pipe busy time: padded_flops / peak(math)
  double dequant_s = 0;         ///< FMA/ALU time of weight-only kernels' dequantisation, inside time_s (2.7)
  double collective_bytes = 0;  ///< bytes sent by this GPU's collectives (Collective rows)
  double time_s = 0;            ///< modelled time
  std::array<double, kLimiterCount> time_by_limiter_s{};
  Limiter limiter = Limiter::Memory;  ///< the largest entry of time_by_limiter_s
  /// GEMM rows: the kernel family of the forward pass ("tokens_on_m", "swap_ab", "gemv", "moe_grouped",
  /// "weight_only"; docs/design/ceiling-model.md 2.7); empty for other rows.
  std::string_view kernel_family;
};

/// How the note of a deployment that does not fit memory begins (Ceiling::fits false; section 2.8).
inline constexpr std::string_view kDoesNotFitNote = "does not fit";

/// The ceiling of one step on one GPU of a TP group.
struct Ceiling {
  std::vector<OpCost> ops;             ///< in first-execution order, one row per operator name
  double sm_clock_mhz = 0;             ///< clock of the peaks
  Dtype main_math = Dtype::Bf16;       ///< GEMM math of the largest weight group
  double peak_flops_per_s = 0;         ///< dense peak of main_math at sm_clock_mhz
  double peak_memory_bytes_per_s = 0;  ///< spec DRAM bandwidth (Memory SOL's 100%)
  double step_time_s = 0;
  double busy_s = 0;  ///< compute-pipe busy time
  double flops = 0;   ///< useful FLOPs on this GPU
  double padded_flops = 0;
  double model_flops = 0;  ///< useful FLOPs of one pipeline stage's GPUs (replicated work counted once)
  double dram_bytes = 0;
  double weight_bytes = 0;
  std::array<double, kLimiterCount> time_by_limiter_s{};
  Limiter limiter = Limiter::Memory;  ///< the resource with the largest share of the step
  /// Tensor-pipe activity: busy_s / step_time_s x 100, what `sm__pipe_tensor_cycles_active` reads, MMA tile
  /// padding at the batch's M and dequantising kernels' MMA work included (2.7). The attainable line to
  /// compare with a live Compute SOL.
  double tensor_activity_pct = 0;
  double compute_sol_pct = 0;  ///< alias of tensor_activity_pct (kept for existing readers)
  /// Useful Compute SOL = MFU: model FLOPs of the stage's GPUs / (GPUs x peak(main_math) x step time) x 100
  /// (2.7). Above tensor_activity_pct only where model FLOPs run off the tensor pipe: GEMV kernels at one
  /// token (Llama-3.1-8B decoding 1 request on H100: useful 0.2%, activity 0.1%); otherwise never above it.
  double useful_compute_sol_pct = 0;
  double useful_busy_s = 0;   ///< model FLOPs / (gpus_per_stage x peak): the useful part of busy_s
  double dequant_s = 0;       ///< FMA/ALU dequantisation time of weight-only kernels (2.7)
  double memory_sol_pct = 0;  ///< attainable Memory SOL: dram_bytes / (spec bandwidth x step time) x 100
  StepTokens tokens;          ///< of the whole step (all requests)
  double tokens_per_s = 0;    ///< computed tokens (prompt + generated) per second at the modelled step time
  double output_tokens_per_s = 0;  ///< tokens sampled per second
  double mfu_pct = 0;              ///< model FLOPs utilisation at the modelled speed
  int tensor_parallel = 1;
  int expert_parallel = 1;      ///< EP degree (2.8)
  int attention_dp = 1;         ///< attention data-parallel ranks (ep / tp with --dp-attention)
  int pipeline_parallel = 1;    ///< pipeline stages
  int microbatches = 1;         ///< microbatches per step under pipeline parallelism
  int gpus_per_stage = 1;       ///< tp x attention_dp: the GPUs model_flops and MFU are spread over
  int gpus = 1;                 ///< gpus_per_stage x pipeline_parallel
  double bubble_fraction = 0;   ///< pipeline idle share of the step, (pp - 1) / (m + pp - 1)
  double experts_per_gpu = 0;   ///< routed experts held per GPU: E / ep (0 for a dense model)
  double all_to_all_bytes = 0;  ///< bytes this GPU sends in EP dispatch + combine per step, all MoE layers
  double resident_weight_bytes = 0;      ///< weights held per GPU
  double resident_expert_bytes = 0;      ///< the routed experts among resident_weight_bytes
  double resident_kv_bytes = 0;          ///< KV cache of the step's requests per GPU (0 for a training step)
  double resident_activation_bytes = 0;  ///< largest GEMM's input + output plus the residual stream [G]
  double memory_need_bytes = 0;          ///< weights + KV + activations per GPU
  double memory_usable_bytes = 0;        ///< device memory less the spec file's reserve (10%, vLLM's 0.9)
  bool fits =
      true;  ///< memory_need_bytes <= memory_usable_bytes; else a "does not fit" note with the numbers
  /// The weight, activation, KV-cache and main GEMM math dtypes and where each came from (config.json,
  /// quantization_config, hf_quant_config.json, a flag, a fallback), for the reports.
  DtypeChoices dtypes;
  std::vector<std::string> notes;  ///< assumptions and warnings for the user
};

/// Evaluates one step of `workload` for `arch` on `gpu` (a row of `db`); with attention data parallelism
/// and pipeline microbatches, the step is the whole group's and one GPU's share is costed (2.8). Errors:
/// InvalidArgument for a bad step, TP degree, parallel layout or dtype (messages from make_step, build_ops,
/// parallel_layout and resolve_precision), for a clock outside 1-10,000 MHz, or for TP, EP or PP > 1 on a
/// GPU with no link in the spec file. A deployment that does not fit memory is not an error: `fits` is false
/// and a note gives the numbers. Pure and allocation-light: well under
/// 1 ms (bench/ceiling_bench.cpp).
[[nodiscard]] auto evaluate(const GpuDatabase& db, const GpuSpec& gpu, const ModelArch& arch,
                            const Workload& workload) -> core::Result<Ceiling>;

/// MFU of a measured speed (2.3): tokens/s x model FLOPs per computed token / (t x peak) x 100, where tokens
/// are those the step computes (prompt tokens for prefill, generated tokens for decode) over the whole TP
/// group, and the peak is the dense `main_math` peak at the evaluation clock. NaN for a negative or
/// non-finite speed.
[[nodiscard]] auto mfu_pct(const Ceiling& ceiling, double measured_tokens_per_s) -> double;

/// A step and how often it runs (steps per second, or any relative weight).
struct WeightedStep {
  const Ceiling* step = nullptr;
  double weight = 0;
};

/// The ceiling of a mix of steps (2.6: prefill and decode steps weighted by the observed token rates).
struct MixCeiling {
  double tensor_activity_pct = 0;                  ///< sum w busy / sum w time x 100
  double compute_sol_pct = 0;                      ///< alias of tensor_activity_pct
  double useful_compute_sol_pct = 0;               ///< sum w useful_busy / sum w time x 100 (MFU)
  double memory_sol_pct = 0;                       ///< sum w bytes / (bandwidth x sum w time) x 100
  std::array<double, kLimiterCount> time_share{};  ///< fraction of the mix's time per resource, sums to 1
  Limiter limiter = Limiter::Memory;
};

/// Combines steps costed on the same GPU. Errors: InvalidArgument when empty, when a weight is negative or
/// not finite, when all weights are 0, or when a step pointer is null.
[[nodiscard]] auto combine_steps(std::span<const WeightedStep> steps) -> core::Result<MixCeiling>;

}  // namespace solscope::ceiling
