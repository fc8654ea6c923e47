// parse_model_config: Hugging Face config.json -> ModelArch (docs/design/ceiling-model.md 3.1).
#include <algorithm>
#include <utility>

#include "ceiling/detail/json_read.hpp"
#include "ceiling/detail/model_quant.hpp"
#include "ceiling/model_arch.hpp"

namespace solscope::ceiling {
namespace {

using core::Result;
using detail::FieldReader;
using detail::Json;

constexpr std::int64_t kMaxWidth = 10'000'000;
constexpr std::int64_t kMaxCount = 1'000'000;
constexpr std::int64_t kMaxVocab = 100'000'000;

auto invalid(std::string message, std::string hint = "check the config file")
    -> core::Unexpected<core::Error> {
  return core::fail(core::ErrorCode::InvalidArgument, std::move(message), std::move(hint));
}

auto read_shapes(const FieldReader& f, ModelArch& m) -> Result<void> {
  auto h = f.required_integer({"hidden_size", "n_embd", "d_model"}, 1, kMaxWidth);
  auto layers = f.required_integer({"num_hidden_layers", "n_layer", "num_layers"}, 1, kMaxCount);
  auto heads = f.required_integer({"num_attention_heads", "n_head", "num_heads"}, 1, kMaxCount);
  auto vocab = f.required_integer({"vocab_size"}, 1, kMaxVocab);
  auto kv = f.ranged_integer({"num_key_value_heads", "num_kv_heads"}, 1, kMaxCount);
  auto head_dim = f.ranged_integer({"head_dim"}, 1, kMaxWidth);
  auto ffn = f.ranged_integer({"intermediate_size", "n_inner", "ffn_dim"}, 1, kMaxWidth);
  auto tie = f.boolean({"tie_word_embeddings"});
  auto max_pos = f.ranged_integer({"max_position_embeddings", "n_positions"}, 1, kMaxVocab);
  if (!h) return core::propagate(h);
  if (!layers) return core::propagate(layers);
  if (!heads) return core::propagate(heads);
  if (!vocab) return core::propagate(vocab);
  for (const auto* r : {&kv, &head_dim, &ffn, &max_pos}) {
    if (!*r) return core::propagate(*r);
  }
  if (!tie) return core::propagate(tie);
  m.hidden_size = *h;
  m.num_layers = *layers;
  m.num_heads = *heads;
  m.vocab_size = *vocab;
  m.num_kv_heads = kv->value_or(*heads);
  m.head_dim = head_dim->value_or(*h / *heads);
  m.intermediate_size = ffn->value_or(0);
  m.tie_word_embeddings = tie->value_or(false);
  m.max_position_embeddings = max_pos->value_or(0);
  if (m.num_heads % m.num_kv_heads != 0) {
    return invalid(f.context() + ": " + std::to_string(m.num_heads) +
                   " attention heads are not a multiple of " + std::to_string(m.num_kv_heads) +
                   " key-value heads");
  }
  if (!head_dim->has_value() && m.hidden_size % m.num_heads != 0) {
    return invalid(f.context() + ": hidden_size " + std::to_string(m.hidden_size) + " is not a multiple of " +
                   std::to_string(m.num_heads) + " heads and 'head_dim' is absent");
  }
  return core::ok();
}

auto read_moe(const FieldReader& f, ModelArch& m) -> Result<void> {
  auto experts = f.ranged_integer(
      {"num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts", "num_routed_experts"}, 1,
      kMaxCount);
  auto k = f.ranged_integer({"num_experts_per_tok", "num_experts_per_token", "experts_per_token", "moe_topk",
                             "moe_top_k", "top_k_experts", "num_selected_experts"},
                            1, kMaxCount);
  auto moe_ffn = f.ranged_integer({"moe_intermediate_size", "expert_intermediate_size"}, 1, kMaxWidth);
  auto shared = f.ranged_integer({"n_shared_experts", "num_shared_experts"}, 0, kMaxCount);
  auto shared_ffn = f.ranged_integer({"shared_expert_intermediate_size"}, 0, kMaxWidth);
  auto beside = f.boolean({"enable_moe_block"});
  for (const auto* r : {&experts, &k, &moe_ffn, &shared, &shared_ffn}) {
    if (!*r) return core::propagate(*r);
  }
  if (!beside) return core::propagate(beside);
  if (!experts->has_value()) return core::ok();
  m.num_experts = **experts;
  if (!k->has_value()) {
    return invalid(f.context() + ": MoE config without experts per token",
                   "expected one of 'num_experts_per_tok', 'top_k_experts', 'experts_per_token', 'moe_topk'");
  }
  m.experts_per_token = **k;
  if (m.experts_per_token > m.num_experts) {
    return invalid(f.context() + ": " + std::to_string(m.experts_per_token) + " experts per token but only " +
                   std::to_string(m.num_experts) + " experts");
  }
  // Mixtral and gpt-oss give the per-expert width as intermediate_size (3.1).
  m.expert_intermediate_size = moe_ffn->value_or(m.intermediate_size);
  if (m.expert_intermediate_size <= 0) return invalid(f.context() + ": MoE config without an expert width");
  // Gemma-4's MoE layers run the dense MLP (intermediate_size) beside the experts (3.5).
  m.dense_mlp_beside_moe = beside->value_or(false) && moe_ffn->has_value() && m.intermediate_size > 0;
  if (!moe_ffn->has_value()) m.intermediate_size = 0;
  m.shared_intermediate_size = shared_ffn->value_or(shared->value_or(0) * m.expert_intermediate_size);
  return core::ok();
}

auto read_mla(const FieldReader& f, ModelArch& m) -> Result<void> {
  auto kv_lora = f.ranged_integer({"kv_lora_rank"}, 1, kMaxWidth);
  if (!kv_lora) return core::propagate(kv_lora);
  if (!kv_lora->has_value()) return core::ok();
  auto q_lora = f.ranged_integer({"q_lora_rank"}, 1, kMaxWidth);
  auto nope = f.required_integer({"qk_nope_head_dim"}, 1, kMaxWidth);
  auto rope = f.required_integer({"qk_rope_head_dim"}, 0, kMaxWidth);
  auto v = f.required_integer({"v_head_dim"}, 1, kMaxWidth);
  if (!q_lora) return core::propagate(q_lora);
  for (const auto* r : {&nope, &rope, &v}) {
    if (!*r) return core::propagate(*r);
  }
  m.mla = MlaShape{q_lora->value_or(0), **kv_lora, *nope, *rope, *v};
  m.head_dim = *nope + *rope;
  return core::ok();
}

/// Gated DeltaNet shapes (Qwen3-Next, Qwen3.5; 3.4) and the output gate of their full-attention layers.
auto read_linear_attention(const FieldReader& f, ModelArch& m) -> Result<void> {
  auto gate = f.boolean({"attn_output_gate"});
  if (!gate) return core::propagate(gate);
  m.attn_output_gate = gate->value_or(m.model_type.rfind("qwen3_next", 0) == 0);
  auto nk = f.ranged_integer({"linear_num_key_heads"}, 1, kMaxCount);
  if (!nk) return core::propagate(nk);
  if (!nk->has_value()) return core::ok();
  auto nv = f.required_integer({"linear_num_value_heads"}, 1, kMaxCount);
  auto dk = f.required_integer({"linear_key_head_dim"}, 1, kMaxWidth);
  auto dv = f.required_integer({"linear_value_head_dim"}, 1, kMaxWidth);
  auto conv = f.ranged_integer({"linear_conv_kernel_dim"}, 1, kMaxCount);
  auto state = f.string({"mamba_ssm_dtype"});
  for (const auto* r : {&nv, &dk, &dv}) {
    if (!*r) return core::propagate(*r);
  }
  if (!conv) return core::propagate(conv);
  if (!state) return core::propagate(state);
  LinearAttentionShape s{**nk, *nv, *dk, *dv, conv->value_or(4), 0.0};
  if (!conv->has_value()) m.notes.push_back("no 'linear_conv_kernel_dim': assumed 4");
  if (state->has_value()) {
    const auto dtype = dtype_from_string(**state);
    if (!dtype) return invalid(f.context() + ": unsupported mamba_ssm_dtype '" + **state + "'");
    s.state_bytes_per_element = bytes_per_element(*dtype);
  }
  m.linear = s;
  return core::ok();
}

/// Gemma-4's full-attention ("global") layers: their own head size, KV heads and K = V projection (3.4).
auto read_global_heads(const FieldReader& f, ModelArch& m) -> Result<void> {
  auto dim = f.ranged_integer({"global_head_dim"}, 1, kMaxWidth);
  auto kv = f.ranged_integer({"num_global_key_value_heads"}, 1, kMaxCount);
  auto k_eq_v = f.boolean({"attention_k_eq_v"});
  if (!dim) return core::propagate(dim);
  if (!kv) return core::propagate(kv);
  if (!k_eq_v) return core::propagate(k_eq_v);
  m.global_head_dim = dim->value_or(0);
  m.global_kv_heads = kv->value_or(0);
  m.global_k_eq_v = k_eq_v->value_or(false);
  if (m.global_kv_heads > 0 && m.num_heads % m.global_kv_heads != 0) {
    return invalid(f.context() + ": " + std::to_string(m.num_heads) +
                   " attention heads are not a multiple of " + std::to_string(m.global_kv_heads) +
                   " global key-value heads");
  }
  return core::ok();
}

auto read_mlp_kind(const FieldReader& f, ModelArch& m) -> Result<void> {
  auto act = f.string({"hidden_act", "hidden_activation", "activation_function"});
  if (!act) return core::propagate(act);
  const std::string name = act->value_or("silu");
  const bool gelu_family = name.find("gelu") != std::string::npos || name == "relu";
  const bool gated_gelu = m.model_type.rfind("gemma", 0) == 0;
  m.mlp = (gelu_family && !gated_gelu) ? MlpKind::Plain : MlpKind::Gated;
  if (!act->has_value()) m.notes.push_back("no 'hidden_act': assumed a gated (SwiGLU) MLP");
  return core::ok();
}

/// Per-layer MoE flags (3.1: DeepSeek first_k_dense_replace/moe_layer_freq, Qwen-MoE decoder_sparse_step and
/// mlp_only_layers, Llama 4 interleave_moe_layer_step).
auto moe_flags(const FieldReader& f, const ModelArch& m) -> Result<std::vector<bool>> {
  std::vector<bool> moe(static_cast<std::size_t>(m.num_layers), m.is_moe());
  if (!m.is_moe()) return moe;
  auto first_dense = f.ranged_integer({"first_k_dense_replace"}, 0, m.num_layers);
  auto freq =
      f.ranged_integer({"moe_layer_freq", "decoder_sparse_step", "interleave_moe_layer_step"}, 1, kMaxCount);
  if (!first_dense) return core::propagate(first_dense);
  if (!freq) return core::propagate(freq);
  const bool deepseek_style = f.find({"first_k_dense_replace"}) != nullptr;
  for (std::int64_t i = 0; i < m.num_layers; ++i) {
    const std::int64_t step = freq->value_or(1);
    const bool on_step = deepseek_style ? (i % step == 0) : ((i + 1) % step == 0);
    moe[static_cast<std::size_t>(i)] = i >= first_dense->value_or(0) && on_step;
  }
  if (const Json* dense_only = f.find({"mlp_only_layers"}); dense_only != nullptr && dense_only->is_array()) {
    for (const Json& layer : *dense_only) {
      if (!layer.is_number_integer())
        return invalid(f.context() + ": 'mlp_only_layers' must hold layer numbers");
      const auto i = layer.get<std::int64_t>();
      if (i >= 0 && i < m.num_layers) moe[static_cast<std::size_t>(i)] = false;
    }
  }
  return moe;
}

/// Per-layer sliding-window flags from `layer_types`, or `sliding_window` with `use_sliding_window` and
/// `max_window_layers` (3.1).
auto sliding_flags(const FieldReader& f, ModelArch& m) -> Result<std::vector<bool>> {
  std::vector<bool> sliding(static_cast<std::size_t>(m.num_layers), false);
  auto window = f.ranged_integer({"sliding_window"}, 1, kMaxVocab);
  auto use = f.boolean({"use_sliding_window"});
  auto max_window_layers = f.ranged_integer({"max_window_layers"}, 0, kMaxCount);
  if (!window) return core::propagate(window);
  if (!use) return core::propagate(use);
  if (!max_window_layers) return core::propagate(max_window_layers);
  if (const Json* types = f.find({"layer_types"}); types != nullptr) {
    if (!types->is_array() || types->size() != sliding.size()) {
      return invalid(f.context() + ": 'layer_types' must list one entry per layer (" +
                     std::to_string(m.num_layers) + ")");
    }
    for (std::size_t i = 0; i < sliding.size(); ++i) {
      const Json& t = (*types)[i];
      sliding[i] = t.is_string() && t.get<std::string>().find("sliding") != std::string::npos;
    }
  } else if (window->has_value() && use->value_or(true)) {
    const std::int64_t first =
        (use->value_or(false) && max_window_layers->has_value()) ? **max_window_layers : 0;
    if (first > 0)
      m.notes.push_back("layers from max_window_layers on are taken as sliding-window layers [G]");
    for (std::int64_t i = first; i < m.num_layers; ++i) sliding[static_cast<std::size_t>(i)] = true;
  }
  const bool any = std::find(sliding.begin(), sliding.end(), true) != sliding.end();
  if (any && !window->has_value()) return invalid(f.context() + ": sliding layers but no 'sliding_window'");
  m.sliding_window = any ? **window : 0;
  return sliding;
}

/// Per-layer linear-attention flags from `layer_types` ("linear_attention") or `full_attention_interval`
/// (layer i is full when (i + 1) is a multiple of it; Qwen3-Next's rule), for models with linear_* shapes.
auto linear_flags(const FieldReader& f, const ModelArch& m) -> Result<std::vector<bool>> {
  std::vector<bool> linear(static_cast<std::size_t>(m.num_layers), false);
  auto interval = f.ranged_integer({"full_attention_interval"}, 1, kMaxCount);
  if (!interval) return core::propagate(interval);
  const Json* types = f.find({"layer_types"});
  if (types != nullptr && types->is_array() && types->size() == linear.size()) {
    for (std::size_t i = 0; i < linear.size(); ++i) {
      const Json& t = (*types)[i];
      linear[i] = t.is_string() && t.get<std::string>().find("linear") != std::string::npos;
    }
  } else if (m.linear && interval->has_value()) {
    for (std::size_t i = 0; i < linear.size(); ++i)
      linear[i] = (i + 1) % static_cast<std::size_t>(**interval) != 0;
  }
  const bool any = std::find(linear.begin(), linear.end(), true) != linear.end();
  if (any && !m.linear) {
    return invalid(f.context() + ": linear-attention layers but no 'linear_num_key_heads'",
                   "the config needs linear_num_key_heads, linear_num_value_heads, linear_key_head_dim and "
                   "linear_value_head_dim");
  }
  if (m.linear && !any) {
    return invalid(f.context() + ": linear-attention shapes but no layer marked linear",
                   "add 'layer_types' or 'full_attention_interval'");
  }
  return linear;
}

auto build_layer_groups(const FieldReader& f, ModelArch& m) -> Result<void> {
  auto moe = moe_flags(f, m);
  if (!moe) return core::propagate(moe);
  auto sliding = sliding_flags(f, m);
  if (!sliding) return core::propagate(sliding);
  auto linear = linear_flags(f, m);
  if (!linear) return core::propagate(linear);
  for (std::size_t i = 0; i < moe->size(); ++i) {
    const bool l = (*linear)[i];
    const bool s = (*sliding)[i] && !l;
    const bool e = (*moe)[i];
    auto it = std::find_if(m.layer_groups.begin(), m.layer_groups.end(), [&](const LayerGroup& g) {
      return g.sliding == s && g.moe == e && g.linear == l;
    });
    if (it == m.layer_groups.end()) {
      m.layer_groups.push_back(LayerGroup{1, s, e, l});
    } else {
      ++it->count;
    }
  }
  if (m.moe_layers() < m.num_layers && m.intermediate_size <= 0) {
    return invalid(f.context() + ": dense layers but no 'intermediate_size'");
  }
  return core::ok();
}

auto read_identity(const FieldReader& f, const Json& root, ModelArch& m) -> Result<void> {
  auto type = f.string({"model_type"});
  if (!type) return core::propagate(type);
  m.model_type = type->value_or("");
  FieldReader top(root, f.context());
  auto path = top.string({"_name_or_path"});
  if (!path) return core::propagate(path);
  m.name = path->value_or("");
  const Json* archs = top.find({"architectures"});
  if (m.name.empty() && archs != nullptr && archs->is_array() && !archs->empty() && (*archs)[0].is_string()) {
    m.name = (*archs)[0].get<std::string>();
  }
  if (m.name.empty()) m.name = m.model_type.empty() ? "unnamed model" : m.model_type;
  const bool qwen2 = m.model_type.rfind("qwen2", 0) == 0;
  auto bias = f.boolean({"attention_bias", "qkv_bias"});
  if (!bias) return core::propagate(bias);
  m.qkv_bias = bias->value_or(qwen2);
  m.qk_norm = m.model_type.rfind("qwen3", 0) == 0 || m.model_type.rfind("gemma3", 0) == 0 ||
              m.model_type.rfind("gemma4", 0) == 0;
  return core::ok();
}

auto read_dtype(const FieldReader& text, const FieldReader& top, ModelArch& m) -> Result<void> {
  auto own = text.string({"torch_dtype", "dtype"});
  auto outer = top.string({"torch_dtype", "dtype"});
  if (!own) return core::propagate(own);
  if (!outer) return core::propagate(outer);
  const auto name = own->has_value() ? own : outer;
  const bool nested = own->has_value() && text.context() != top.context();
  const FieldReader& named = own->has_value() ? text : top;
  const std::string_view key = named.find({"torch_dtype"}) != nullptr ? "torch_dtype" : "dtype";
  if (!name->has_value()) {
    m.notes.push_back("no 'torch_dtype': assumed bf16 weights");
    return core::ok();
  }
  const auto dtype = dtype_from_string(**name);
  if (!dtype || (*dtype != Dtype::Bf16 && *dtype != Dtype::Fp16 && *dtype != Dtype::Fp32)) {
    return invalid(text.context() + ": unsupported torch_dtype '" + **name + "'",
                   "use bfloat16, float16 or float32, or pass --dtype");
  }
  m.checkpoint_dtype = *dtype;
  m.checkpoint_dtype_origin = (nested ? "text_config " : "") + std::string(key);
  if (*dtype == Dtype::Fp32) {
    m.checkpoint_dtype = Dtype::Bf16;
    m.checkpoint_dtype_origin += " float32, served as bf16";
    m.notes.push_back("float32 checkpoint: modelled as served in bf16 (pass --dtype to change)");
  }
  return core::ok();
}

}  // namespace

auto parse_model_config(std::string_view json_text, std::string_view origin) -> Result<ModelArch> {
  return parse_model_config(json_text, origin, std::string_view{});
}

auto parse_model_config(std::string_view json_text, std::string_view origin,
                        std::string_view hf_quant_config_text) -> Result<ModelArch> {
  const std::string context = "model config " + std::string(origin);
  auto root = detail::parse_json(json_text, context);
  if (!root) return core::propagate(root);
  if (!root->is_object()) return invalid(context + ": the top level must be a JSON object");
  const auto nested = root->find("text_config");
  const bool use_nested = nested != root->end() && nested->is_object() && !root->contains("hidden_size");
  const Json& text = use_nested ? *nested : *root;
  const FieldReader f(text, use_nested ? context + " text_config" : context);
  const FieldReader top(*root, context);
  ModelArch m;
  if (auto r = read_identity(f, *root, m); !r) return core::propagate(r);
  if (auto r = read_shapes(f, m); !r) return core::propagate(r);
  if (auto r = read_moe(f, m); !r) return core::propagate(r);
  if (auto r = read_mla(f, m); !r) return core::propagate(r);
  if (auto r = read_linear_attention(f, m); !r) return core::propagate(r);
  if (auto r = read_global_heads(f, m); !r) return core::propagate(r);
  if (auto r = read_mlp_kind(f, m); !r) return core::propagate(r);
  if (auto r = build_layer_groups(f, m); !r) return core::propagate(r);
  if (auto r = read_dtype(f, top, m); !r) return core::propagate(r);
  const Json* quant = f.find({"quantization_config"});
  if (quant == nullptr) quant = top.find({"quantization_config"});
  if (auto r = detail::read_quantization(quant, context, m); !r) return core::propagate(r);
  if (!hf_quant_config_text.empty()) {
    auto hf_quant = detail::parse_json(hf_quant_config_text, context + " hf_quant_config.json");
    if (!hf_quant) return core::propagate(hf_quant);
    if (auto r = detail::read_hf_quant_config(*hf_quant, context + " hf_quant_config.json", m); !r) {
      return core::propagate(r);
    }
  }
  if (use_nested) m.notes.push_back("read the language model from the nested 'text_config'");
  return m;
}

}  // namespace solscope::ceiling
