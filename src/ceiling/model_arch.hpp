// A transformer's architecture as the ceiling model needs it, read from a Hugging Face `config.json`: dense,
// GQA, sliding-window, MoE (routed and shared experts), MLA, `quantization_config` and a nested
// `text_config`.
//
// Source: docs/design/ceiling-model.md section 3.1 (field mapping, aliases and pitfalls) and 3.2 (values
// of the configs the tests use); parameter shapes from section 2.2.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ceiling/dtype.hpp"
#include "core/result.hpp"

namespace solscope::ceiling {

/// Groups of weights that share a storage dtype (quantization applies per module,
/// docs/design/ceiling-model.md 3.1).
enum class Module : std::uint8_t {
  Embedding,      ///< token embedding table
  Attention,      ///< Q, K, V and output projections (and the MLA down/up projections)
  DenseMlp,       ///< the MLP of dense layers
  Router,         ///< the MoE gate (router) matrix
  Experts,        ///< routed experts
  SharedExperts,  ///< always-on shared experts
  LmHead,         ///< the output projection to the vocabulary
  kCount
};
inline constexpr std::size_t kModuleCount = static_cast<std::size_t>(Module::kCount);

/// Index of a Module into per-module arrays.
[[nodiscard]] constexpr auto index_of(Module module) -> std::size_t {
  return static_cast<std::size_t>(module);
}

/// Lowercase name: "embedding", "attention", "dense_mlp", "router", "experts", "shared_experts", "lm_head".
[[nodiscard]] auto to_string(Module module) -> std::string_view;

/// Gated MLP (SwiGLU/GeGLU: gate, up, down; 3 matrices) or plain MLP (GELU: up, down; 2 matrices) (2.2).
enum class MlpKind : std::uint8_t { Gated, Plain };

/// How the checkpoint's weights are stored and which GEMM math runs on them (docs/design/ceiling-model.md
/// 2.5 item 1, 3.1).
struct Quantization {
  std::string method;  ///< `quant_method` as written ("fp8", "mxfp4", "awq", ...); empty: not quantized
  double bits_per_weight = 0;  ///< storage of one converted weight including its scales; 0 when not quantized
  Dtype math = Dtype::Bf16;    ///< GEMM math of converted modules: FP8 for W8A8, BF16 for weight-only [G]
  std::array<bool, kModuleCount> converted{};  ///< modules stored in the quantized format
};

/// The modules a quantization method converts unless told otherwise: every linear layer but the embedding,
/// router and LM head (docs/design/ceiling-model.md 3.1).
[[nodiscard]] constexpr auto linear_layer_modules() -> std::array<bool, kModuleCount> {
  std::array<bool, kModuleCount> converted{};
  for (Module m : {Module::Attention, Module::DenseMlp, Module::Experts, Module::SharedExperts}) {
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

/// Consecutive or scattered layers that share an attention and MLP kind.
struct LayerGroup {
  std::int64_t count = 0;
  bool sliding = false;  ///< attention limited to ModelArch::sliding_window tokens
  bool moe = false;      ///< routed-expert MLP instead of the dense one
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
  std::optional<MlaShape> mla;                ///< set for MLA models
  std::vector<LayerGroup> layer_groups;       ///< counts add up to num_layers
  Dtype checkpoint_dtype = Dtype::Bf16;  ///< `torch_dtype` / `dtype` (FP32 checkpoints are served as BF16)
  Quantization quant;
  std::int64_t max_position_embeddings = 0;
  std::vector<std::string> notes;  ///< assumptions made while reading the config, for the user

  [[nodiscard]] auto is_moe() const -> bool { return num_experts > 0; }
  /// Number of layers with a routed-expert MLP.
  [[nodiscard]] auto moe_layers() const -> std::int64_t;
  /// Number of layers with sliding-window attention.
  [[nodiscard]] auto sliding_layers() const -> std::int64_t;
};

/// Reads a Hugging Face `config.json` given as text. `origin` names it in messages (the file path). A
/// multimodal wrapper's nested `text_config` is used when present. Errors: InvalidArgument with the JSON
/// position for malformed text; naming the field for a missing or out-of-range value ("model config X:
/// missing field 'hidden_size', 'n_embd' or 'd_model'"); for inconsistent shapes (heads not dividing, k > E,
/// `layer_types` of the wrong length).
[[nodiscard]] auto parse_model_config(std::string_view json_text, std::string_view origin)
    -> core::Result<ModelArch>;

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

/// KV-cache bytes per token summed over the full-attention layers (2.2 "GQA": 2 L n_kv d b_kv; MLA:
/// (kv_lora_rank + qk_rope_head_dim) per layer). Sliding-window layers are left out: they hold at most W
/// tokens.
[[nodiscard]] auto kv_bytes_per_token(const ModelArch& arch, double kv_bytes_per_element) -> double;

/// KV-cache bytes of one sequence holding `tokens` tokens, over all layers (sliding layers capped at W
/// tokens).
[[nodiscard]] auto kv_bytes_per_sequence(const ModelArch& arch, double tokens, double kv_bytes_per_element)
    -> double;

}  // namespace solscope::ceiling
