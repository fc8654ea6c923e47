// Efficiency terms that turn operator work into time (docs/design/ceiling-model.md 2.5): GEMM wave and tile
// quantization with padded FLOPs, fixed per-kernel overhead plus effective bandwidth for memory-bound
// kernels, and the ring all-reduce of tensor parallelism.
#pragma once

#include <cstdint>
#include <string_view>

#include <vector>

#include "ceiling/detail/operators.hpp"
#include "ceiling/gpu_spec.hpp"

namespace solscope::ceiling {

/// How a GEMM maps onto the GPU (2.5 item 2): tiles = groups x ceil(m/Tm) x ceil(n/Tn), waves = ceil(tiles x
/// split_k / SMs), wave efficiency = tiles x split_k / (waves x SMs), padded FLOPs = tiles x Tm x Tn x 2k
/// (what the tensor-pipe counter sees). Tm is token_tile_for(m, the architecture's token tiles); Tn is its
/// feature tile. A GEMM with fewer tiles than SMs splits k into up to
/// SMs / tiles slices of at least kMinSplitK (split-K, as cuBLAS does for skinny shapes; the rule is [G],
/// docs/design/ceiling-model.md 5 item 3).
/// The kernel family a GEMM runs (docs/design/ceiling-model.md 2.7, "Kernel families"): tokens on the MMA's
/// M (the default), swap-AB (tokens on N), a GEMV on the FMA pipe, an MoE grouped GEMM padded per expert, or
/// a weight-only (Marlin) kernel.
enum class GemmFamily : std::uint8_t { TokensOnM, SwapAb, Gemv, MoeGrouped, WeightOnly, kCount };

/// "tokens_on_m", "swap_ab", "gemv", "moe_grouped", "weight_only".
[[nodiscard]] auto to_string(GemmFamily family) -> std::string_view;

struct GemmTiling {
  GemmFamily family = GemmFamily::TokensOnM;
  int token_tile = 0;  ///< token rows (tokens on M) or columns (swap-AB) per tile; 0 for a GEMV
  int feature_tile = 0;
  double token_tiles = 0;  ///< token tiles summed over the groups (an expectation for MoE experts)
  double tiles = 0;
  double split_k = 1;  ///< k slices per output tile
  double waves = 0;
  double wave_efficiency = 0;  ///< 0-1; 0 for an empty GEMM
  double padded_flops = 0;
  double fma_flops = 0;  ///< GEMV only: 2mnk x groups on the FMA pipe, no tensor work
  /// Weight-only and dequantising MoE kernels: row blocks that each dequantise the weights once (summed over
  /// the groups; an expectation for MoE experts); 0 = token_tiles.
  double dequant_blocks = 0;
};

/// Smallest k slice of a split-K GEMM [G].
inline constexpr double kMinSplitK = 256;

/// The token tile a tokens-on-M GEMM of `m` tokens runs: of `tiles` (ascending), the one that pads m to the
/// fewest rows, ceil(m / T) T; on a tie the larger (fewer CTAs for the same work). A library's heuristics
/// choose among its tile shapes by the work they waste [G: cuBLAS does not document its heuristics]; m = 8
/// with tiles {16, 32, 64, 128} runs 16, m = 129 runs 64 (192 rows, not 256 with 128-row tiles). 128 when
/// `tiles` is empty.
[[nodiscard]] auto token_tile_for(double m, const std::vector<int>& tiles) -> int;

/// Tiles a GEMM on `sm_count` SMs. Example: m=8192, n=6144, k=4096 on H100 (132 SMs, 128x128 tiles): 3072
/// tiles, 24 waves, wave efficiency 0.97, no padding. m=1, n=4096, k=4096: 16-row tiles, 32 tiles split 4
/// ways in k, one wave of 128 of 132 SMs, 16x padding.
[[nodiscard]] auto gemm_tiling(const GemmShape& shape, const ArchEfficiency& arch, int sm_count)
    -> GemmTiling;

/// Sets split-K, waves and wave efficiency of `t.tiles` output tiles of a GEMM with reduction depth `k` on
/// `sm_count` SMs (the rule of GemmTiling).
void schedule_tiles(GemmTiling& t, double k, int sm_count);

/// Seconds to move `bytes` at the GPU's effective bandwidth, spec bandwidth x memory_efficiency (2.5 item 3;
/// the fixed per-kernel overhead is added by the caller).
[[nodiscard]] auto memory_time_s(double bytes, const GpuSpec& gpu) -> double;

/// Bus bandwidth of the TP all-reduce in bytes/s: half the bidirectional GPU-GPU link (the host link when
/// there is none) x bus efficiency (2.2; Calculon's 0.65).
[[nodiscard]] auto all_reduce_bus_bytes_per_s(const GpuSpec& gpu, const CollectiveModel& model) -> double;

/// Ring all-reduce of `bytes` over `tp` GPUs: latency + 2 (t-1)/t x bytes / bus bandwidth (2.2); 0 for tp
/// <= 1.
[[nodiscard]] auto all_reduce_time_s(double bytes, int tp, const GpuSpec& gpu, const CollectiveModel& model)
    -> double;

/// ALU/FMA instructions per weight element to dequantise a weight-only format in registers [G, assumed]:
/// Marlin's INT4 -> FP16/BF16 path is bit operations (lop3) on packed words plus one half2 subtract or FMA
/// per two elements (vLLM csrc/quantization/gptq_marlin/dequant.h, its comment on fast dequantisation); 2
/// per element is taken for the bit work, the scale and the conversion (docs/design/ceiling-model.md 2.7).
inline constexpr double kDequantOpsPerWeight = 2.0;

/// Dequantisation instructions of a weight-only GEMM: every CTA dequantises the weights of its M tile, so
/// groups x ceil(m / token_tile) x n x k x kDequantOpsPerWeight (2.7). 0 for an empty shape.
[[nodiscard]] auto dequant_alu_ops(const GemmShape& shape, int token_tile) -> double;

/// The same for a tiled GEMM: dequant_blocks (token_tiles when 0) x n x k x kDequantOpsPerWeight (MoE
/// experts: the expected row blocks of the routing distribution). 0 for an empty shape.
[[nodiscard]] auto dequant_alu_ops(const GemmShape& shape, const GemmTiling& tiling) -> double;

/// Per-lane FP32 instructions per second: SMs x FP32 FLOP/clock/SM / 2 (an FMA is 2 FLOPs) x clock.
[[nodiscard]] auto alu_ops_per_s(const GpuSpec& gpu, double sm_clock_mhz) -> double;

/// Pairwise all-to-all where each GPU sends `bytes_sent` (spread over the other ep - 1 GPUs) over its link:
/// latency + bytes_sent / (link_bidir / 2 x bus efficiency) (2.8); 0 for ep <= 1. Overlap is applied by the
/// caller.
[[nodiscard]] auto all_to_all_time_s(double bytes_sent, int ep, const GpuSpec& gpu,
                                     const CollectiveModel& model) -> double;

/// One pipeline send of `bytes` to the next stage: p2p latency + bytes / (link_bidir / 2 x bus efficiency).
[[nodiscard]] auto send_time_s(double bytes, const GpuSpec& gpu, const CollectiveModel& model) -> double;

}  // namespace solscope::ceiling
