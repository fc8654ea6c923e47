// The GEMM kernel families and their padding (docs/design/ceiling-model.md 2.7, "Kernel families"): which
// kernel an engine's library runs for a GEMM of a given shape, and the tensor work that kernel issues.
// Switch points and tiles come from the `gemm_kernels` object of each architecture row of
// data/gpu_specs.json (GemmKernels), with their sources in the row's `sources`.
#pragma once

#include "ceiling/detail/efficiency.hpp"

namespace solscope::ceiling {

/// Binomial window half-width in standard deviations for expected_tiles_per_expert, plus a fixed margin in
/// tokens (kRoutingWindowTokens): the binomial mass outside it is below 1e-20, far under a double's
/// resolution of the sum.
inline constexpr double kRoutingWindowSd = 12.0;
inline constexpr double kRoutingWindowTokens = 32.0;

/// E[ceil(X / tile)] for X ~ Binomial(round(tokens), probability): the expected token tiles of one expert
/// (X = 0 gives no tile). Computed exactly from the binomial pmf (log-gamma form) over mean +- 12 sd + 32
/// tokens, so the cost is O(sqrt(tokens)) and no normal or Poisson approximation is needed. Examples: 3
/// tokens, p = 0.5, tile 2: 3/8 x 1 + 3/8 x 1 + 1/8 x 2 = 1.0; Qwen3-30B-A3B (E = 128, k = 8) at 8 tokens
/// with 16-row tiles: 1 - (15/16)^8 = 0.4033. 0 when tokens, probability or tile is <= 0.
[[nodiscard]] auto expected_tiles_per_expert(double tokens, double probability, int tile) -> double;

/// The family a GEMM runs (2.7): an op with routing runs the MoE grouped family when the architecture
/// lists MoE tiles (or a weight-only tile and the op dequantises); a dequantising GEMM runs the weight-only
/// (Marlin) family when the architecture has a weight-only tile; a dense single-group GEMM of at most
/// gemv_max_tokens tokens runs a GEMV, of at most swap_ab_max_tokens tokens swap-AB; everything else keeps
/// its tokens on the MMA's M.
[[nodiscard]] auto choose_gemm_family(const GemmShape& shape, const ExpertRouting& routing,
                                      const GemmKernels& kernels, bool dequantises) -> GemmFamily;

/// Tiles a GEMM by its family on `sm_count` SMs:
/// - tokens on M: gemm_tiling();
/// - GEMV: no tiles, padded FLOPs 0, fma_flops = 2mnk x groups (the caller times them on the FP32 pipe);
/// - swap-AB: tokens padded to a multiple of swap_ab_token_tile on the MMA's N, features to
///   swap_ab_feature_tile on its M: padded FLOPs = ceil(m / Tn) Tn x ceil(n / Tm) Tm x 2k x groups;
/// - weight-only: tokens padded to weight_only_token_tile (Marlin's m16), features to gemm_feature_tile;
/// - MoE grouped: local_experts x expected_tiles_per_expert() token tiles of Tm rows, where Tm is the first
///   MoE tile while the step's tokens are at most E, else the second (the weight-only tile when the experts
///   dequantise); features to gemm_feature_tile.
[[nodiscard]] auto family_tiling(const GemmShape& shape, const ExpertRouting& routing,
                                 const ArchEfficiency& arch, int sm_count, bool dequantises) -> GemmTiling;

}  // namespace solscope::ceiling
