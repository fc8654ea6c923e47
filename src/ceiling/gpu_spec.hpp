// The GPU spec database: per-GPU compute, memory and link figures and per-architecture efficiency terms,
// parsed from a JSON data file (data/gpu_specs.json, embedded into the binary by default) where every row
// names its source.
//
// Sources: docs/design/ceiling-model.md section 1 (tables 1.1-1.3) for the hardware figures, section 2.5
// for the efficiency terms, section 2.2 for the collective model. All compute rates are dense (section 0):
// datasheets for Hopper, Ada and Blackwell print 2:4-sparse tensor figures, twice the dense rate; this
// database never holds those.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ceiling/detail/dtype.hpp"
#include "core/result.hpp"

namespace solscope::ceiling {

/// One attention kernel family of an architecture (docs/design/ceiling-model.md 2.5 item 4, 2.7 "Kernel
/// families"): the kernel the engines run, its sustained FLOP/s over the dense peak of each math dtype, and,
/// for decode kernels, the query rows one tile pads the packed query heads to.
struct AttentionKernel {
  std::string kernel;  ///< e.g. "FlashAttention-3"
  /// Sustained FLOP/s over the dense peak of each math dtype, 0-1 (published kernel figures; 7).
  std::array<double, kDtypeCount> efficiency{};
  /// Decode families: rows of the MMA tile that the query heads sharing one KV head fill (GQA group x query
  /// tokens, or all query heads for MLA); the tile is padded up to a multiple of it (2.7). 1 = no padding.
  int query_tile = 1;
  /// The kernel runs its math at the FP8 tensor rate when the KV cache is FP8 (FA3 FP8, TensorRT-LLM FP8
  /// FMHA); otherwise it dequantises K and V to the activation dtype.
  bool fp8_math = false;
};

/// The attention kernel families of an architecture: prefill (chunks of new tokens, FlashAttention-class
/// kernels), decode of softmax attention with GQA packing, and MLA decode in the absorbed form.
struct AttentionKernels {
  AttentionKernel prefill;
  AttentionKernel decode;
  AttentionKernel mla_decode;
};

/// Switch points and tiles of the GEMM kernel families of one architecture (docs/design/ceiling-model.md 2.7,
/// "Kernel families"; the `gemm_kernels` object of an architecture row). Without that object every field
/// keeps its default, which is the single rule "pad M to the smallest token tile" (no GEMV, no swap-AB, MoE
/// experts tiled at the mean tokens per expert, weight-only kernels on the token tiles).
struct GemmKernels {
  /// Dense GEMMs of at most this many tokens run a GEMV on the FMA pipe (no tensor work); 0 = never.
  int gemv_max_tokens = 0;
  /// Dense GEMMs of more than gemv_max_tokens and at most this many tokens run swap-AB (tokens on the MMA's
  /// N side); 0 = never.
  int swap_ab_max_tokens = 0;
  int swap_ab_token_tile = 8;     ///< swap-AB token granularity (the MMA's N step)
  int swap_ab_feature_tile = 64;  ///< swap-AB feature rows per tile (the MMA's M)
  /// MoE grouped GEMM token tiles per expert: the first while the step's tokens are at most the expert count,
  /// the second above it; empty = the tokens-on-M tiles at the mean tokens per active expert.
  std::vector<int> moe_token_tiles;
  /// Token tile of weight-only (dequantising, Marlin) kernels, dense and grouped; 0 = the tokens-on-M tiles.
  int weight_only_token_tile = 0;
  /// Token rows that share one dequantised weight tile in a weight-only kernel: a Marlin CTA covers up to 4
  /// blocks of 16 rows (`thread_m_blocks` <= 4) and dequantises each weight tile once for all of them; 0 =
  /// weight_only_token_tile.
  int weight_only_dequant_rows = 0;
};

/// Efficiency terms shared by every GPU of one architecture (docs/design/ceiling-model.md 2.5); each one is
/// calibratable in the data file.
struct ArchEfficiency {
  std::string id;  ///< "hopper", "ampere-ga100", ...
  /// eta_max per math dtype, 0-1: best measured matmul FLOP/s over the datasheet peak (MAMF; 2.5 item 2).
  std::array<double, kDtypeCount> matmul_efficiency{};
  /// Token-dimension tile sizes GEMM kernels choose from, ascending (2.5 item 2; sizes are [G]).
  std::vector<int> gemm_token_tiles;
  int gemm_feature_tile = 128;     ///< output-feature tile width (2.5 item 2, [G])
  GemmKernels gemm_kernels;        ///< kernel families at small M (2.7)
  int attention_query_tile = 128;  ///< query rows per attention tile; K/V are re-read once per tile (2.2)
  /// Prefill, decode and MLA-decode kernels (the row's "attention_kernels" object; an older file's single
  /// "attention_efficiency" maps to every family at every dtype, query tile 1 and no FP8 math).
  AttentionKernels attention_kernels;
  /// The MMA instruction the GEMM kernels of this generation issue (PTX ISA name, e.g. "wgmma ... m64nNk16");
  /// its M sets the smallest token tile and thus the padding at decode (docs/design/ceiling-model.md 2.7).
  std::string mma_instruction;
  std::string source;
  /// Source of each calibration constant by field name ("matmul_efficiency", "attention_kernel",
  /// "attention_prefill", "attention_decode", "gemm_token_tiles", ...), from the row's optional "sources"
  /// object (7).
  std::map<std::string, std::string> sources;
};

/// Ring all-reduce model t = latency + 2 (t-1)/t x bytes / (link_bidir / 2 x bus_efficiency)
/// (docs/design/ceiling-model.md 2.2: latency floor 8 us from llm-analysis, efficiency 0.65 from Calculon).
struct CollectiveModel {
  double latency_us = 8.0;
  double bus_efficiency = 0.65;
  /// Fraction of the TP all-reduce time hidden behind compute, 0-1 (0: on the critical path, 2.8) [G].
  double all_reduce_overlap = 0.0;
  /// Fraction of the EP all-to-all (dispatch + combine) time hidden behind compute, 0-1 (2.8); assumed 0.5.
  double all_to_all_overlap = 0.0;
  double p2p_latency_us = 8.0;  ///< latency of one pipeline-parallel activation send (2.8)
  std::string source;
  std::map<std::string, std::string> sources;  ///< per-constant sources (7)
};

/// One GPU model. Units are in the names; NaN marks a figure the vendor does not publish.
struct GpuSpec {
  std::string id;                      ///< canonical name, e.g. "H100-SXM5-80GB"
  std::vector<std::string> aliases;    ///< other accepted names, including the NVML device name ([G])
  std::string arch;                    ///< ArchEfficiency::id
  std::string chip;                    ///< e.g. "GH100"
  int sm_count = 0;                    ///< SMs (CUs on AMD)
  double max_sm_clock_mhz = 0.0;       ///< maximum (boost) SM clock
  double tensor_spec_clock_mhz = 0.0;  ///< clock at which the datasheet's tensor peaks are quoted (section 0)
  /// Dense FLOP per clock per SM for each math dtype (table 1.3); 0 = not supported. `Fp64` holds the FP64
  /// tensor-core rate where there is one, else the FP64 vector rate; `Fp32` is the FMA pipe.
  std::array<double, kDtypeCount> flop_per_clock_per_sm{};
  /// Dense FP64 FLOP per clock per SM of the non-tensor FP64 pipe (the "fp64" column, which `fp64_tc`
  /// overrides in `flop_per_clock_per_sm`); what a DFMA chain can reach (`solscope check`).
  double fp64_vector_flop_per_clock_per_sm = 0.0;
  /// The vendor's dense TFLOP/s per dtype as printed (table 1.1), NaN where the file gives none; used only to
  /// check the rates above.
  std::array<double, kDtypeCount> datasheet_dense_tflops{};
  double memory_bytes = 0.0;                  ///< device memory capacity (GB x 1e9 as datasheets print it)
  double memory_bandwidth_bytes_per_s = 0.0;  ///< spec DRAM bandwidth (table 1.2)
  double l2_mb = std::numeric_limits<double>::quiet_NaN();  ///< L2 size as printed; NaN when unpublished
  double link_bidir_bytes_per_s = 0.0;       ///< GPU-GPU link, both directions (NVLink, bridge); 0 = none
  double host_link_bidir_bytes_per_s = 0.0;  ///< host link (PCIe x16), both directions ([G])
  std::string host_link;                     ///< e.g. "PCIe Gen5 x16"
  double tdp_w = 0.0;
  double memory_efficiency = 0.8;   ///< B_eff / spec bandwidth for memory-bound kernels, 0-1 (2.5 item 3)
  double kernel_overhead_us = 5.0;  ///< t0, fixed time per kernel (2.5 items 3 and 5)
  std::size_t arch_index = 0;       ///< index into GpuDatabase::architectures
  std::string source;
  std::map<std::string, std::string> sources;  ///< per-constant sources ("memory_efficiency", ...) (7)
};

/// Every GPU and architecture of one spec file.
struct GpuDatabase {
  std::vector<ArchEfficiency> architectures;
  std::vector<GpuSpec> gpus;
  CollectiveModel collective;
  /// Fraction of device memory kept free for the CUDA context, workspaces and graphs, 0-0.9 (vLLM's
  /// --gpu-memory-utilization default 0.9 leaves 0.10; docs/design/ceiling-model.md 2.8).
  double memory_reserve_fraction = 0.10;
  std::string memory_reserve_source;

  /// The architecture terms of a GPU of this database.
  [[nodiscard]] auto arch_of(const GpuSpec& gpu) const -> const ArchEfficiency& {
    return architectures[gpu.arch_index];
  }
};

/// Parses a spec file (the format of data/gpu_specs.json). `origin` names it in messages (a path, or
/// "built-in GPU specs"). Errors: InvalidArgument with the JSON position, or naming the GPU row and field
/// that is missing or out of range; a row whose `arch` is not in `architectures`; a duplicate name or alias.
[[nodiscard]] auto parse_gpu_database(std::string_view json_text, std::string_view origin)
    -> core::Result<GpuDatabase>;

/// Dense peak FLOP/s of `dtype` on `gpu` at `sm_clock_mhz`: SMs x FLOP/clock/SM x clock
/// (docs/design/ceiling-model.md 1.3). 0 when the GPU lacks the dtype. Example: H100 SXM BF16 at 1830 MHz =
/// 132 x 4096 x 1.83e9 = 989.4e12 (the datasheet's 1979 TFLOP/s is the 2:4-sparse figure).
[[nodiscard]] auto peak_flops_per_s(const GpuSpec& gpu, Dtype dtype, double sm_clock_mhz) -> double;

/// Finds a GPU by id or alias, ignoring case, spaces, punctuation and a leading "NVIDIA"/"AMD". Errors:
/// NotFound "unknown GPU '<name>'" with a hint that suggests the closest names ("did you mean ...?") and
/// lists them all.
[[nodiscard]] auto find_gpu(const GpuDatabase& db, std::string_view name) -> core::Result<const GpuSpec*>;

/// The canonical ids of every GPU, in file order.
[[nodiscard]] auto gpu_names(const GpuDatabase& db) -> std::vector<std::string_view>;

/// Lookup key of a GPU name: lowercase letters and digits only, without a leading "nvidia" or "amd".
[[nodiscard]] auto normalize_gpu_name(std::string_view name) -> std::string;

}  // namespace solscope::ceiling
