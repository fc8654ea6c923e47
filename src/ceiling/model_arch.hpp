// A transformer's architecture as the ceiling model needs it, read from a Hugging Face `config.json`: dense,
// GQA, sliding-window, linear attention (Gated DeltaNet), per-layer-type head shapes (Gemma-4 global layers),
// MoE (routed and shared experts, a dense MLP beside them), MLA, `quantization_config` (or a ModelOpt
// `hf_quant_config.json`) and a nested `text_config`.
//
// Source: docs/design/ceiling-model.md section 3.1 (field mapping, aliases and pitfalls), 3.2 (values
// of the configs the tests use), 3.4 (attention kinds), 3.5 (MoE layouts), 3.6 (quantisation formats);
// parameter shapes from section 2.2.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ceiling/detail/dtype.hpp"
#include "core/result.hpp"

namespace solscope::ceiling {

/// Groups of weights that share a storage dtype (quantization applies per module,
/// docs/design/ceiling-model.md 3.1).
enum class Module : std::uint8_t {
  Embedding,        ///< token embedding table
  Attention,        ///< Q, K, V and output projections (and the MLA down/up projections)
  DenseMlp,         ///< the MLP of dense layers
  Router,           ///< the MoE gate (router) matrix
  Experts,          ///< routed experts
  SharedExperts,    ///< always-on shared experts
  LmHead,           ///< the output projection to the vocabulary
  LinearAttention,  ///< projections of Gated DeltaNet linear-attention layers (in_proj_*, out_proj)
  kCount
};
inline constexpr std::size_t kModuleCount = static_cast<std::size_t>(Module::kCount);

/// Index of a Module into per-module arrays.
[[nodiscard]] constexpr auto index_of(Module module) -> std::size_t {
  return static_cast<std::size_t>(module);
}

/// Lowercase name: "embedding", "attention", "dense_mlp", "router", "experts", "shared_experts", "lm_head",
/// "linear_attention".
[[nodiscard]] auto to_string(Module module) -> std::string_view;

/// Gated MLP (SwiGLU/GeGLU: gate, up, down; 3 matrices) or plain MLP (GELU: up, down; 2 matrices) (2.2).
enum class MlpKind : std::uint8_t { Gated, Plain };

/// Where a dtype the ceiling uses came from: the `ceiling` reports' dtype line and their "dtypes" JSON
/// (docs/design/ceiling-model.md 2.5 item 1).
enum class DtypeSource : std::uint8_t {
  Config,              ///< config.json's `torch_dtype` / `dtype`
  QuantizationConfig,  ///< config.json's `quantization_config` (its `kv_cache_scheme` /
                       ///< `kv_cache_quant_algo`)
  HfQuantConfig,       ///< ModelOpt's hf_quant_config.json beside config.json
  Flag,                ///< `--dtype` or `--kv-dtype` (Workload::dtype, Workload::kv_dtype)
  Fallback,            ///< the GPU has no tensor rate for the dtype asked for: the one it runs instead
  Default,             ///< nothing names it: bf16 assumed
  kCount
};

/// "config", "quantization_config", "hf_quant_config", "flag", "fallback", "default".
[[nodiscard]] auto to_string(DtypeSource source) -> std::string_view;

/// How the checkpoint's weights are stored and which GEMM math runs on them (docs/design/ceiling-model.md
/// 2.5 item 1, 3.1).
struct Quantization {
  std::string method;  ///< `quant_method` as written ("fp8", "mxfp4", "awq", ...); empty: not quantized
  std::string algo;    ///< ModelOpt's `quant_algo` as written ("NVFP4", "FP8"); empty for other methods
  /// The file that described it: QuantizationConfig, HfQuantConfig (which replaces the former), or Flag
  /// when `--dtype` replaced both.
  DtypeSource source = DtypeSource::QuantizationConfig;
  std::string format;  ///< the storage format in words ("nvfp4", "mxfp4", "fp8 block 128x128", "int4 g128")
  double bits_per_weight = 0;  ///< storage of one converted weight including its scales; 0 when not quantized
  double value_bits = 0;       ///< bits of one weight value without scales or zero points (4 for INT4/FP4)
  std::int64_t group_size = 0;  ///< weights per scale (32 MXFP4, 16 NVFP4, 128 AWQ); 0 = per channel or block
  bool zero_points = false;     ///< asymmetric integer format with one zero point per group (AWQ, GPTQ)
  /// GEMM math of converted modules where the GPU has a tensor rate for `tensor_format`: FP4 for NVFP4 on
  /// Blackwell, FP8 for W8A8 and for MXFP4 x MXFP8 on Blackwell, BF16 for weight-only INT4 [G]. Without that
  /// rate the kernels dequantise the weights and run the activation dtype (BF16 on Ampere, and on Hopper for
  /// FP4 formats); docs/design/ceiling-model.md 3.6.
  Dtype math = Dtype::Bf16;
  Dtype tensor_format = Dtype::Bf16;  ///< tensor-core input format `math` needs (Fp4 for NVFP4 and MXFP4)
  std::array<bool, kModuleCount> converted{};  ///< modules stored in the quantized format
  /// True when converted weights must be dequantised in the GEMM's main loop on a GPU whose tensor pipe
  /// cannot read them (weight-only INT4 everywhere; FP4 formats without an FP4 rate).
  [[nodiscard]] auto dequantises_on(bool gpu_has_tensor_format) const -> bool {
    return bits_per_weight > 0 && (math == Dtype::Bf16 || !gpu_has_tensor_format);
  }
};

/// The modules a quantization method converts unless told otherwise: every linear layer but the embedding,
/// router and LM head (docs/design/ceiling-model.md 3.1).
[[nodiscard]] constexpr auto linear_layer_modules() -> std::array<bool, kModuleCount> {
  std::array<bool, kModuleCount> converted{};
  for (Module m : {Module::Attention, Module::LinearAttention, Module::DenseMlp, Module::Experts,
                   Module::SharedExperts}) {
    converted[index_of(m)] = true;
  }
  return converted;
}

/// Multi-head latent attention shapes (DeepSeek-V2/V3; docs/design/ceiling-model.md 2.2 "MLA").
struct MlaShape {
  std::int64_t q_lora_rank = 0;  ///< 0 = queries projected directly from the hidden state
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t v_head_dim = 0;
};

/// The token mixer of a layer (docs/design/ceiling-model.md 3.4). MLA is a model-wide variant of Full
/// (ModelArch::mla).
enum class AttentionKind : std::uint8_t {
  Full,     ///< softmax attention over every cached token; holds KV for every token
  Sliding,  ///< softmax attention over the last ModelArch::sliding_window tokens; holds at most W tokens
  Linear    ///< Gated DeltaNet linear attention: a fixed recurrent state per request, no KV cache
};

/// "full", "sliding", "linear".
[[nodiscard]] auto to_string(AttentionKind kind) -> std::string_view;

/// Consecutive or scattered layers that share an attention and MLP kind.
struct LayerGroup {
  std::int64_t count = 0;
  bool sliding = false;  ///< attention limited to ModelArch::sliding_window tokens
  bool moe = false;      ///< routed-expert MLP instead of the dense one
  bool linear = false;   ///< Gated DeltaNet linear attention (then `sliding` is false)

  [[nodiscard]] auto attention() const -> AttentionKind {
    return linear ? AttentionKind::Linear : (sliding ? AttentionKind::Sliding : AttentionKind::Full);
  }
};

/// Head shape of the softmax-attention layers of one kind (docs/design/ceiling-model.md 3.4).
struct AttentionShape {
  std::int64_t num_heads = 0;     ///< n_q
  std::int64_t num_kv_heads = 0;  ///< n_kv
  std::int64_t head_dim = 0;      ///< d of Q, K and V
  bool k_eq_v = false;  ///< V comes from K's projection (no v_proj weights); K and V are both cached [G]
};

/// Gated DeltaNet shapes (Qwen3-Next, Qwen3.5 `linear_*` fields; docs/design/ceiling-model.md 3.4).
struct LinearAttentionShape {
  std::int64_t num_key_heads = 0;    ///< heads of q and k (`linear_num_key_heads`)
  std::int64_t num_value_heads = 0;  ///< heads of v and of the state (`linear_num_value_heads`)
  std::int64_t key_head_dim = 0;     ///< d_k
  std::int64_t value_head_dim = 0;   ///< d_v
  std::int64_t conv_kernel_dim = 0;  ///< K of the depthwise causal convolution over q, k and v
  /// Bytes per element of the recurrent state (`mamba_ssm_dtype`, float32 in Qwen3.5); 0 = not given, the
  /// caller's bytes per element apply.
  double state_bytes_per_element = 0;

  [[nodiscard]] auto key_dim() const -> std::int64_t { return num_key_heads * key_head_dim; }
  [[nodiscard]] auto value_dim() const -> std::int64_t { return num_value_heads * value_head_dim; }
  /// Channels of the causal convolution: q, k and v (2 key_dim + value_dim).
  [[nodiscard]] auto conv_dim() const -> std::int64_t { return 2 * key_dim() + value_dim(); }
};

/// One language model. Sizes are element counts; 0 means "not present".
struct ModelArch {
  std::string name;               ///< `_name_or_path`, else `architectures[0]`, else `model_type`
  std::string model_type;         ///< e.g. "llama", "mixtral", "deepseek_v3"
  std::int64_t hidden_size = 0;   ///< h
  std::int64_t num_layers = 0;    ///< L
  std::int64_t num_heads = 0;     ///< n_q
  std::int64_t num_kv_heads = 0;  ///< n_kv (= n_q when absent: MHA)
  std::int64_t head_dim = 0;      ///< d (`head_dim`, else h / n_q; Qwen3 and gpt-oss set it and n_q d != h)
  std::int64_t intermediate_size = 0;  ///< F of dense layers; 0 when every layer is MoE
  std::int64_t vocab_size = 0;         ///< V (padded)
  bool tie_word_embeddings = false;    ///< parameter count only: the LM head is still read every step
  MlpKind mlp = MlpKind::Gated;
  bool qkv_bias = false;                      ///< Qwen2 and `attention_bias` models
  bool qk_norm = false;                       ///< per-head RMSNorm of Q and K (Qwen3)
  std::int64_t num_experts = 0;               ///< E routed experts; 0 for a dense model
  std::int64_t experts_per_token = 0;         ///< k
  std::int64_t expert_intermediate_size = 0;  ///< F_e
  std::int64_t shared_intermediate_size = 0;  ///< total width of the shared experts (S x F_e); 0 = none
  std::int64_t sliding_window = 0;            ///< W on sliding layers; 0 = none
  /// MoE layers also run the dense MLP of width intermediate_size beside the experts (Gemma-4
  /// `enable_moe_block`).
  bool dense_mlp_beside_moe = false;
  /// q_proj also produces a sigmoid gate per head and channel (Qwen3-Next, Qwen3.5 `attn_output_gate`): n_q d
  /// more outputs.
  bool attn_output_gate = false;
  std::int64_t global_head_dim = 0;  ///< d on full-attention layers when it differs (Gemma-4); 0 = head_dim
  std::int64_t global_kv_heads = 0;  ///< n_kv on full-attention layers (Gemma-4); 0 = num_kv_heads
  bool global_k_eq_v = false;        ///< full layers take V from K's projection (Gemma-4 `attention_k_eq_v`)
  std::optional<LinearAttentionShape> linear;  ///< set when some layers are linear attention
  std::optional<MlaShape> mla;                 ///< set for MLA models
  /// KV-cache dtype the checkpoint was calibrated for (`kv_cache_quant_algo` FP8, `kv_cache_scheme` 8-bit
  /// float); the default of Workload::kv_dtype when set.
  std::optional<Dtype> kv_cache_dtype;
  DtypeSource kv_cache_source = DtypeSource::QuantizationConfig;  ///< file of kv_cache_dtype, when set
  std::string kv_cache_origin;  ///< the field that set it: "kv_cache_scheme", "kv_cache_quant_algo FP8"
  std::vector<LayerGroup> layer_groups;  ///< counts add up to num_layers
  Dtype checkpoint_dtype = Dtype::Bf16;  ///< `torch_dtype` / `dtype` (FP32 checkpoints are served as BF16)
  /// The config.json field that set checkpoint_dtype ("torch_dtype", "text_config dtype", "torch_dtype
  /// float32, served as bf16"); empty when none names it (bf16 assumed).
  std::string checkpoint_dtype_origin;
  Quantization quant;
  std::int64_t max_position_embeddings = 0;
  std::vector<std::string> notes;  ///< assumptions made while reading the config, for the user

  [[nodiscard]] auto is_moe() const -> bool { return num_experts > 0; }
  /// Number of layers with a routed-expert MLP.
  [[nodiscard]] auto moe_layers() const -> std::int64_t;
  /// Number of layers with sliding-window attention.
  [[nodiscard]] auto sliding_layers() const -> std::int64_t;
  /// Number of layers with linear (Gated DeltaNet) attention.
  [[nodiscard]] auto linear_layers() const -> std::int64_t;
  /// Number of layers with full softmax attention (neither sliding nor linear; MLA layers included).
  [[nodiscard]] auto full_layers() const -> std::int64_t;
};

/// Head shape of the softmax layers of `kind` (Full or Sliding): Gemma-4's full layers use global_head_dim,
/// global_kv_heads and global_k_eq_v; every other model has one shape. Linear gives the Full shape.
[[nodiscard]] auto attention_shape(const ModelArch& arch, AttentionKind kind) -> AttentionShape;

/// Reads a Hugging Face `config.json` given as text. `origin` names it in messages (the file path). A
/// multimodal wrapper's nested `text_config` is used when present. Errors: InvalidArgument with the JSON
/// position for malformed text; naming the field for a missing or out-of-range value ("model config X:
/// missing field 'hidden_size', 'n_embd' or 'd_model'"); for inconsistent shapes (heads not dividing, k > E,
/// `layer_types` of the wrong length).
[[nodiscard]] auto parse_model_config(std::string_view json_text, std::string_view origin)
    -> core::Result<ModelArch>;

/// As above, with the text of a ModelOpt `hf_quant_config.json` found beside config.json (empty view: none).
/// Its `quantization.quant_algo` (NVFP4, FP8, W4A8_AWQ, ...), `group_size`, `exclude_modules` and
/// `kv_cache_quant_algo` replace a `quantization_config` in config.json. Errors: those of
/// parse_model_config, and InvalidArgument for malformed hf_quant_config text or a missing `quantization`
/// object.
[[nodiscard]] auto parse_model_config(std::string_view json_text, std::string_view origin,
                                      std::string_view hf_quant_config_text) -> core::Result<ModelArch>;

/// Parameter counts in elements (docs/design/ceiling-model.md 3.3 conventions).
struct ParamCounts {
  double total = 0;   ///< every weight, embeddings included (tied embeddings counted once)
  double active = 0;  ///< weights used by one token: k routed experts of each MoE layer, plus shared experts
  double embedding = 0;                          ///< V h
  double lm_head = 0;                            ///< V h, or 0 when tied
  double non_embedding = 0;                      ///< total - embedding - lm_head
  double non_embedding_active = 0;               ///< active - embedding - lm_head
  std::array<double, kModuleCount> by_module{};  ///< total per module (norms are counted under Attention)
};

/// Counts the parameters of `arch` from the shapes of docs/design/ceiling-model.md 2.2 (biases of QKV
/// included, other biases and attention sinks ignored). Llama-3.1-8B gives 8.03e9 total, 6.98e9 non-embedding
/// (3.3).
[[nodiscard]] auto count_params(const ModelArch& arch) -> ParamCounts;

/// KV-cache bytes per token summed over the full-attention layers (2.2 "GQA": 2 L n_kv d b_kv with each
/// layer kind's own n_kv and d; MLA: (kv_lora_rank + qk_rope_head_dim) per layer). Sliding-window layers are
/// left out (they hold at most W tokens), and so are linear-attention layers (no KV cache).
[[nodiscard]] auto kv_bytes_per_token(const ModelArch& arch, double kv_bytes_per_element) -> double;

/// KV-cache bytes per cached token of one layer of `kind` (0 for Linear), in the sliding or full layers' own
/// head shape.
[[nodiscard]] auto kv_bytes_per_token_per_layer(const ModelArch& arch, AttentionKind kind,
                                                double kv_bytes_per_element) -> double;

/// KV-cache bytes of one sequence holding `tokens` tokens, over all layers (sliding layers capped at W
/// tokens, linear layers hold none: see recurrent_state_bytes_per_request).
[[nodiscard]] auto kv_bytes_per_sequence(const ModelArch& arch, double tokens, double kv_bytes_per_element)
    -> double;

/// KV-cache bytes one GPU of a `tensor_parallel` group holds for one sequence of `tokens` tokens: each layer
/// kind's KV heads are split max(1, n_kv / t) / n_kv (replicated when t > n_kv, so Gemma-4's 4 global KV
/// heads at t = 8 cost twice their share); MLA's latent cache is replicated on every rank (section 2.2).
[[nodiscard]] auto kv_bytes_per_sequence_per_gpu(const ModelArch& arch, double tokens,
                                                 double kv_bytes_per_element, int tensor_parallel) -> double;

/// Bytes of the fixed per-request state of the linear-attention layers, summed over them: the recurrent
/// state n_v d_k d_v per layer (at LinearAttentionShape::state_bytes_per_element when the config names it,
/// else `bytes_per_element`) plus the causal-convolution state (K - 1) x conv_dim at `bytes_per_element`.
/// Independent of the sequence length; read and written by every step that advances the request. 0 when
/// the model has no linear layers. Qwen3.5-27B: 48 x (48 x 128 x 128 x 4 + 3 x 10,240 x 2) = 153.9 MB.
[[nodiscard]] auto recurrent_state_bytes_per_request(const ModelArch& arch, double bytes_per_element)
    -> double;

/// Recurrent-state bytes of one linear-attention layer (the per-layer term of the function above).
[[nodiscard]] auto recurrent_state_bytes_per_layer(const ModelArch& arch, double bytes_per_element) -> double;

/// Weight bytes the routed experts of one MoE layer read for `tokens` routed tokens: the expected distinct
/// experts E_act(T) (operators.hpp expected_active_experts, 2.2) x one expert's weights x
/// `bytes_per_weight`. At T = 1 it is k experts; it approaches E as T grows.
[[nodiscard]] auto routed_expert_bytes_per_layer(const ModelArch& arch, double tokens,
                                                 double bytes_per_weight) -> double;

}  // namespace solscope::ceiling
