// The operators of one step on one GPU: GEMMs, attention, memory-bound kernels and TP all-reduces, with their
// FLOPs and DRAM bytes.
//
// Source: docs/design/ceiling-model.md section 2.2 (per-layer operators, GQA, sliding windows, MLA, MoE
// active experts, tensor parallelism), 2.1 (attention pair counts), 2.5 item 1 (which dtype the kernels run).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ceiling/detail/dtype.hpp"
#include "ceiling/gpu_spec.hpp"
#include "ceiling/model_arch.hpp"
#include "ceiling/workload.hpp"
#include "core/result.hpp"

namespace solscope::ceiling {

/// What bounds an operator's kernels: GEMMs and attention run on the tensor pipe (and read memory); memory
/// kernels (norms, RoPE, activations, KV writes) only move bytes; collectives use the GPU-GPU link.
enum class OpKind : std::uint8_t { Gemm, Attention, Memory, Collective };

/// Which collective a Collective operator runs (docs/design/ceiling-model.md 2.2, 2.8): the TP ring
/// all-reduce, the EP all-to-all (dispatch or combine), or a pipeline stage's point-to-point send.
enum class CollectiveKind : std::uint8_t { AllReduce, AllToAll, SendRecv };

/// "gemm", "attention", "memory", "collective".
[[nodiscard]] auto to_string(OpKind kind) -> std::string_view;

/// `groups` independent m x n x k products in one kernel (experts of a grouped GEMM, heads of a batched
/// GEMM); m is the token dimension. Fractional values are expectations (tokens per expert under uniform
/// routing).
struct GemmShape {
  double m = 0;
  double n = 0;
  double k = 0;
  double groups = 1;
};

/// Attention operators only (docs/design/ceiling-model.md 2.5 item 4, 2.7 "Kernel families"): the FLOPs of
/// the prefill chunks and of the decoding requests (Op::flops is their sum), the decode MMA work padded to
/// the decode kernel's query tile (what the tensor pipe runs), and each part's math dtype.
struct AttentionFlops {
  double prefill = 0;        ///< useful FLOPs of requests computing more than one new token
  double decode = 0;         ///< useful FLOPs of decoding requests (one new token each)
  double decode_padded = 0;  ///< `decode` with the packed query rows padded per tile (>= decode)
  Dtype prefill_math = Dtype::Bf16;
  Dtype decode_math = Dtype::Bf16;
  bool mla = false;  ///< the decode part runs the MLA-decode family (absorbed form), else the GQA decode one
};

/// How an MoE grouped GEMM's tokens reach its experts under uniform routing (docs/design/ceiling-model.md
/// 2.7, kernel families): each of `tokens` tokens picks a given expert with `probability` = k / E, so an
/// expert gets Binomial(tokens, k / E) tokens; `local_experts` = E / ep experts sit on this GPU. All 0 for a
/// GEMM that is not routed.
struct ExpertRouting {
  double tokens = 0;
  double probability = 0;
  double experts = 0;  ///< E, all experts of the layer
  double local_experts = 0;
};

/// One operator of one step on one GPU, for one kernel instance; `instances` kernels run per step (usually
/// one per layer). Training multiplies the work when the step is costed (ceiling.hpp).
struct Op {
  std::string_view name;  ///< snake_case, stable across releases ("qkv_proj", "attention", "tp_all_reduce")
  OpKind kind = OpKind::Memory;
  Module module = Module::Attention;  ///< whose weights a GEMM reads
  double instances = 1;               ///< kernels per step
  GemmShape gemm;                     ///< Gemm only
  ExpertRouting routing;              ///< MoE expert GEMMs only
  double flops = 0;  ///< useful FLOPs per instance (GEMM 2mnk x groups; attention 2 n_h (d_qk + d_v) P)
  double bytes = 0;  ///< DRAM bytes per instance (weights + activations + KV), excluding collectives
  double weight_bytes = 0;      ///< the weights among `bytes`
  double collective_bytes = 0;  ///< message size per instance (Collective only; all-to-all: bytes sent)
  CollectiveKind collective = CollectiveKind::AllReduce;  ///< Collective only
  Dtype math = Dtype::Bf16;                               ///< rate column of the FLOPs
  bool sharded = true;  ///< split across TP ranks; false when every rank repeats it (router, MLA down-proj)
  /// GPUs of a pipeline stage whose work this GPU's FLOPs stand for, when the TP rule (tp if sharded, else 1,
  /// times the attention data-parallel ranks) does not hold: the EP degree for expert-parallel experts.
  /// 0 = the TP rule (2.8).
  double group_multiplier = 0;
  AttentionFlops attention;  ///< Attention only
};

/// One dtype the ceiling used and where it came from (docs/design/ceiling-model.md 2.5 item 1).
struct DtypeChoice {
  std::string dtype = "bf16";  ///< to_string(Dtype), or a quantised storage format's name ("nvfp4", "int4")
  DtypeSource source = DtypeSource::Default;
  /// What the source said, for people: the field ("torch_dtype", "kv_cache_quant_algo FP8"), the method and
  /// format ("fp8, block 128x128"), the flag ("--kv-dtype"), or why a fallback ("A100-SXM4-80GB has no fp8
  /// tensor rate"); may be empty.
  std::string detail;

  friend auto operator==(const DtypeChoice&, const DtypeChoice&) -> bool = default;
};

/// The dtypes of a ceiling: weights of the largest weight group (the MLP or the routed experts), activations
/// (and attention math), the KV cache, and the math of the main GEMMs (the peak MFU is quoted against).
struct DtypeChoices {
  DtypeChoice weights;
  DtypeChoice activations;
  DtypeChoice kv_cache;
  DtypeChoice gemm_math;

  friend auto operator==(const DtypeChoices&, const DtypeChoices&) -> bool = default;
};

/// Storage and math dtypes per module after `quantization_config`, `--dtype` and the GPU's supported dtypes.
struct Precision {
  std::array<double, kModuleCount> weight_bytes{};  ///< bytes per weight (0.53 for 4-bit AWQ with scales)
  std::array<Dtype, kModuleCount> math{};           ///< GEMM math per module
  Dtype activation = Dtype::Bf16;  ///< activations, and attention math unless attention_math() says FP8
  Dtype kv = Dtype::Bf16;          ///< KV-cache dtype (bf16, fp16, fp32 or fp8)
  double kv_bytes = 2;             ///< bytes per KV-cache element
  bool fp8_tensor_rate = false;    ///< the GPU has an FP8 tensor rate
  Dtype main_math = Dtype::Bf16;   ///< math of the largest weight group: the peak MFU is quoted against
  DtypeChoices dtypes;             ///< what was used and where each came from, for the reports
  std::vector<std::string> notes;
};

/// Resolves dtypes (docs/design/ceiling-model.md 2.5 item 1): W8A8 FP8 runs FP8 math; weight-only INT4/MXFP4
/// dequantises and runs BF16; FP8 on a GPU without FP8 tensor cores runs BF16 math (W8A16) with a note.
/// `--dtype` (Workload::dtype) replaces the checkpoint's format (fp8 keeps embeddings, router and LM head in
/// 16 bits). `dtypes` says where each dtype came from: config.json, quantization_config or
/// hf_quant_config.json (their KV-cache fields included), a flag, or a fallback for a GPU without the tensor
/// rate. Errors: InvalidArgument for a weight dtype other than bf16/fp16/fp32/fp8 or a KV dtype other
/// than bf16/fp16/fp32/fp8.
[[nodiscard]] auto resolve_precision(const ModelArch& arch, const Workload& workload, const GpuSpec& gpu)
    -> core::Result<Precision>;

/// Math dtype of an attention kernel family (2.5 item 4): FP8 when the KV cache is FP8, the family runs FP8
/// math (AttentionKernel::fp8_math: FlashAttention-3 FP8, TensorRT-LLM FP8 context FMHA) and the GPU has an
/// FP8 tensor rate, so the ceiling takes the fastest kernel the GPU supports; otherwise the activation dtype
/// (K and V dequantised in the kernel).
[[nodiscard]] auto attention_math(const Precision& precision, const AttentionKernel& family) -> Dtype;

/// Attention work of one layer for one step (2.1): `pairs` = query-key products computed (P_causal: q(c-q) +
/// q(q+1)/2 per request; each query sees at most W keys on a sliding layer), `kv_tokens_read` = cached tokens
/// read per KV head (decode: c or min(c, W); prefill: once per query tile of `query_tile` rows, up to the
/// tile's last position).
struct AttentionWork {
  double pairs = 0;
  double kv_tokens_read = 0;
  double decode_pairs = 0;  ///< the share of `pairs` from requests decoding one token (their context lengths)
};

/// Computes AttentionWork; `window` 0 means full attention.
[[nodiscard]] auto attention_work(const Step& step, std::int64_t window, int query_tile) -> AttentionWork;

/// Expected distinct experts touched by `tokens` tokens under uniform routing: E [1 - (1 - k/E)^T] (2.2 "MoE
/// active experts"). Mixtral (8, 2): 2 at T=1, 5.5 at T=4; Qwen3-30B-A3B (128, 8): 29 at T=4.
[[nodiscard]] auto expected_active_experts(double experts, double per_token, double tokens) -> double;

/// Builds the per-GPU operator list of `workload.step` (one GPU's share of requests, see parallel.hpp: expert
/// parallel MoE, the stage's share of the layers, all-to-all and pipeline sends), in execution order;
/// operators of different layer groups share names (a name appears once per group). Errors: InvalidArgument
/// when the TP degree does not divide the attention heads (n_q % t), or neither divides the other for the KV
/// heads (KV is replicated when t > n_kv), and the errors of parallel_layout().
[[nodiscard]] auto build_ops(const ModelArch& arch, const Workload& workload, const Precision& precision,
                             const ArchEfficiency& arch_eff) -> core::Result<std::vector<Op>>;

}  // namespace solscope::ceiling
