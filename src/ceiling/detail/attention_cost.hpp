// Attention kernels' tensor work and time (docs/design/ceiling-model.md 2.5 item 4, 2.7 "Kernel families"):
// decode padding of the packed query rows and the compute time of prefill and decode parts. Internal to
// src/ceiling.
#pragma once

#include "ceiling/detail/operators.hpp"
#include "ceiling/gpu_spec.hpp"

namespace solscope::ceiling {

/// Query rows a decode attention kernel computes for `rows` packed query rows (the GQA group g = n_q / n_kv
/// per GPU times the query tokens, or all query heads per GPU for MLA's shared latent): `rows` rounded up to
/// a multiple of `query_tile`, the rows of the kernel's MMA tile. Examples: g = 4 in a 16-row tile -> 16
/// (4x), in a 64-row tile -> 64 (16x); 16 MLA heads in a 64-row tile -> 64; 128 -> 128. 0 for rows <= 0; a
/// tile below 1 counts as 1.
[[nodiscard]] auto padded_query_rows(double rows, int query_tile) -> double;

/// Tensor work and compute time of one attention kernel instance.
struct AttentionCompute {
  double padded_flops = 0;  ///< prefill FLOPs + padded decode FLOPs: what the tensor pipe runs
  double busy_s = 0;        ///< each part's padded FLOPs / dense peak of its math dtype
  double compute_s = 0;     ///< each part's FLOPs / (peak x its family's efficiency at that dtype)
};

/// Costs the FLOPs of `a` (times `scale`, 2 for a training backward pass) on `gpu` at `sm_clock_mhz` with the
/// prefill family for the prefill part and the decode or MLA-decode family for the decode part. A part
/// whose dtype the GPU lacks costs no time.
[[nodiscard]] auto attention_compute(const AttentionFlops& a, double scale, const AttentionKernels& kernels,
                                     const GpuSpec& gpu, double sm_clock_mhz) -> AttentionCompute;

}  // namespace solscope::ceiling
