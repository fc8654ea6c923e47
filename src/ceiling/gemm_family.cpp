// GEMM kernel families (docs/design/ceiling-model.md 2.7, "Kernel families").
#include "ceiling/detail/gemm_family.hpp"

#include <algorithm>
#include <cmath>

namespace solscope::ceiling {
namespace {

auto valid(const GemmShape& s, int sm_count) -> bool {
  return s.m > 0 && s.n > 0 && s.k > 0 && s.groups > 0 && sm_count > 0;
}

/// A tiling with `token_tiles` token tiles of `token_tile` tokens and features in tiles of `feature_tile`.
auto padded_tiling(const GemmShape& s, GemmFamily family, double token_tiles, int token_tile,
                   int feature_tile, int sm_count) -> GemmTiling {
  GemmTiling t;
  t.family = family;
  t.token_tile = std::max(token_tile, 1);
  t.feature_tile = std::max(feature_tile, 1);
  t.token_tiles = token_tiles;
  t.tiles = token_tiles * std::ceil(s.n / t.feature_tile);
  schedule_tiles(t, s.k, sm_count);
  t.padded_flops = t.tiles * t.token_tile * t.feature_tile * 2.0 * s.k;
  return t;
}

/// The MoE tile: Marlin's m16 for dequantising experts, else the first MoE tile while the step's tokens are
/// at most the expert count (vLLM/SGLang fused_moe default config: M <= E) and the second above it.
auto moe_tile(const ExpertRouting& r, const GemmKernels& g, bool dequantises) -> int {
  if (dequantises && g.weight_only_token_tile > 0) return g.weight_only_token_tile;
  if (g.moe_token_tiles.empty()) return g.weight_only_token_tile;
  return r.tokens <= r.experts ? g.moe_token_tiles.front() : g.moe_token_tiles.back();
}

/// Rows that share one dequantised weight tile (GemmKernels::weight_only_dequant_rows, else the MMA tile).
auto dequant_rows(const GemmKernels& g) -> int {
  return std::max(g.weight_only_dequant_rows > 0 ? g.weight_only_dequant_rows : g.weight_only_token_tile, 1);
}

}  // namespace

auto expected_tiles_per_expert(double tokens, double probability, int tile) -> double {
  const double n = std::round(tokens);
  if (n <= 0 || probability <= 0 || tile <= 0) return 0.0;
  const double per_tile = tile;
  if (probability >= 1.0) return std::ceil(n / per_tile);
  const double mean = n * probability;
  const double half_width = kRoutingWindowSd * std::sqrt(mean * (1.0 - probability)) + kRoutingWindowTokens;
  const double lo = std::max(1.0, std::floor(mean - half_width));
  const double hi = std::min(n, std::ceil(mean + half_width));
  const double log_p = std::log(probability);
  const double log_q = std::log1p(-probability);
  const double log_n_fact = std::lgamma(n + 1.0);
  double sum = 0;
  for (double x = lo; x <= hi; x += 1.0) {
    const double log_pmf =
        log_n_fact - std::lgamma(x + 1.0) - std::lgamma(n - x + 1.0) + x * log_p + (n - x) * log_q;
    sum += std::exp(log_pmf) * std::ceil(x / per_tile);
  }
  return sum;
}

auto choose_gemm_family(const GemmShape& shape, const ExpertRouting& routing, const GemmKernels& kernels,
                        bool dequantises) -> GemmFamily {
  const bool routed = routing.tokens > 0 && routing.probability > 0 && routing.local_experts > 0;
  const bool weight_only = dequantises && kernels.weight_only_token_tile > 0;
  if (routed && (!kernels.moe_token_tiles.empty() || weight_only)) return GemmFamily::MoeGrouped;
  if (weight_only) return GemmFamily::WeightOnly;
  const bool dense = shape.groups == 1.0 && !routed && !dequantises;
  if (dense && shape.m <= kernels.gemv_max_tokens) return GemmFamily::Gemv;
  if (dense && shape.m <= kernels.swap_ab_max_tokens) return GemmFamily::SwapAb;
  return GemmFamily::TokensOnM;
}

auto family_tiling(const GemmShape& shape, const ExpertRouting& routing, const ArchEfficiency& arch,
                   int sm_count, bool dequantises) -> GemmTiling {
  if (!valid(shape, sm_count)) return GemmTiling{};
  const GemmKernels& g = arch.gemm_kernels;
  switch (choose_gemm_family(shape, routing, g, dequantises)) {
    case GemmFamily::Gemv: {
      GemmTiling t;
      t.family = GemmFamily::Gemv;
      t.fma_flops = 2.0 * shape.m * shape.n * shape.k * shape.groups;
      return t;
    }
    case GemmFamily::SwapAb:
      return padded_tiling(shape, GemmFamily::SwapAb, shape.groups,
                           static_cast<int>(std::ceil(shape.m / g.swap_ab_token_tile)) * g.swap_ab_token_tile,
                           g.swap_ab_feature_tile, sm_count);
    case GemmFamily::WeightOnly: {
      const int tile = g.weight_only_token_tile;
      GemmTiling t = padded_tiling(shape, GemmFamily::WeightOnly, shape.groups * std::ceil(shape.m / tile),
                                   tile, arch.gemm_feature_tile, sm_count);
      t.dequant_blocks = shape.groups * std::ceil(shape.m / dequant_rows(g));
      return t;
    }
    case GemmFamily::MoeGrouped: {
      const int tile = moe_tile(routing, g, dequantises);
      const double tiles =
          routing.local_experts * expected_tiles_per_expert(routing.tokens, routing.probability, tile);
      GemmTiling t =
          padded_tiling(shape, GemmFamily::MoeGrouped, tiles, tile, arch.gemm_feature_tile, sm_count);
      if (dequantises) {
        t.dequant_blocks = routing.local_experts *
                           expected_tiles_per_expert(routing.tokens, routing.probability, dequant_rows(g));
      }
      return t;
    }
    case GemmFamily::TokensOnM:
    case GemmFamily::kCount:
      break;
  }
  return gemm_tiling(shape, arch, sm_count);
}

}  // namespace solscope::ceiling
