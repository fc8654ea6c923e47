// Parameter and KV-cache sizes of a ModelArch (docs/design/ceiling-model.md 2.2 shapes, 3.3 conventions).
#include <algorithm>

#include "ceiling/detail/operators.hpp"
#include "ceiling/model_arch.hpp"
#include "core/enum_table.hpp"

namespace solscope::ceiling {
namespace {

auto as_double(std::int64_t v) -> double {
  return static_cast<double>(v);
}

/// Softmax-attention weights of one layer of `kind`, with the two RMSNorm vectors of the layer.
auto attention_params(const ModelArch& m, AttentionKind kind) -> double {
  const double h = as_double(m.hidden_size);
  const double norms = 2.0 * h;
  if (m.mla) {
    const MlaShape& s = *m.mla;
    const double nq = as_double(m.num_heads);
    const double qk = as_double(s.qk_nope_head_dim + s.qk_rope_head_dim);
    const double q = s.q_lora_rank > 0 ? h * as_double(s.q_lora_rank) + as_double(s.q_lora_rank) +
                                             as_double(s.q_lora_rank) * nq * qk
                                       : h * nq * qk;
    const double kv_a = h * as_double(s.kv_lora_rank + s.qk_rope_head_dim) + as_double(s.kv_lora_rank);
    const double kv_b = as_double(s.kv_lora_rank) * nq * as_double(s.qk_nope_head_dim + s.v_head_dim);
    const double o = nq * as_double(s.v_head_dim) * h;
    return q + kv_a + kv_b + o + norms;
  }
  const AttentionShape a = attention_shape(m, kind);
  const double d = as_double(a.head_dim);
  const double q_out = as_double(a.num_heads) * d * (m.attn_output_gate ? 2.0 : 1.0);
  const double kv_out = as_double(a.num_kv_heads) * d * (a.k_eq_v ? 1.0 : 2.0);
  const double bias = m.qkv_bias ? q_out + kv_out : 0.0;
  const double qk_norm = m.qk_norm ? 2.0 * d : 0.0;
  return h * (q_out + kv_out) + bias + as_double(a.num_heads) * d * h + qk_norm + norms;
}

/// Gated DeltaNet weights of one layer (docs/design/ceiling-model.md 3.4): projections of q, k, v, the output
/// gate z and the per-head decay and update rates (a, b), the depthwise convolution, per-head A and dt bias,
/// the gated RMSNorm and out_proj; with the layer's two RMSNorm vectors.
auto linear_attention_params(const ModelArch& m) -> double {
  const LinearAttentionShape& s = *m.linear;
  const double h = as_double(m.hidden_size);
  const double nv = as_double(s.num_value_heads);
  const double in_proj = h * (as_double(s.conv_dim() + s.value_dim()) + 2.0 * nv);
  const double conv = as_double(s.conv_dim() * s.conv_kernel_dim);
  const double out_proj = as_double(s.value_dim()) * h;
  return in_proj + conv + 2.0 * nv + as_double(s.value_head_dim) + out_proj + 2.0 * h;
}

/// KV-cache elements one token holds in one softmax layer of `kind`: 2 n_kv d (K and V), or kv_lora_rank +
/// qk_rope_head_dim for MLA's latent cache (2.2).
auto kv_elements_per_layer(const ModelArch& m, AttentionKind kind) -> double {
  if (kind == AttentionKind::Linear) return 0.0;
  if (m.mla) return as_double(m.mla->kv_lora_rank + m.mla->qk_rope_head_dim);
  const AttentionShape a = attention_shape(m, kind);
  return 2.0 * as_double(a.num_kv_heads) * as_double(a.head_dim);
}

auto mlp_params(const ModelArch& m, std::int64_t width) -> double {
  const double matrices = m.mlp == MlpKind::Gated ? 3.0 : 2.0;
  return matrices * as_double(m.hidden_size) * as_double(width);
}

}  // namespace

constexpr core::EnumNames<Module> kModuleNames({"embedding", "attention", "dense_mlp", "router", "experts",
                                                "shared_experts", "lm_head", "linear_attention"},
                                               "unknown");

auto to_string(Module module) -> std::string_view {
  return kModuleNames(module);
}

constexpr core::EnumNames<DtypeSource> kDtypeSourceNames({"config", "quantization_config", "hf_quant_config",
                                                          "flag", "fallback", "default"},
                                                         "unknown");

auto to_string(DtypeSource source) -> std::string_view {
  return kDtypeSourceNames(source);
}

auto ModelArch::moe_layers() const -> std::int64_t {
  std::int64_t n = 0;
  for (const LayerGroup& g : layer_groups) n += g.moe ? g.count : 0;
  return n;
}

auto ModelArch::sliding_layers() const -> std::int64_t {
  std::int64_t n = 0;
  for (const LayerGroup& g : layer_groups) n += g.sliding ? g.count : 0;
  return n;
}

auto ModelArch::linear_layers() const -> std::int64_t {
  std::int64_t n = 0;
  for (const LayerGroup& g : layer_groups) n += g.linear ? g.count : 0;
  return n;
}

auto ModelArch::full_layers() const -> std::int64_t {
  return num_layers - sliding_layers() - linear_layers();
}

constexpr core::EnumNames<AttentionKind, 3> kAttentionKindNames({"full", "sliding", "linear"}, "unknown");

auto to_string(AttentionKind kind) -> std::string_view {
  return kAttentionKindNames(kind);
}

auto attention_shape(const ModelArch& m, AttentionKind kind) -> AttentionShape {
  AttentionShape a{m.num_heads, m.num_kv_heads, m.head_dim, false};
  if (kind == AttentionKind::Sliding) return a;
  if (m.global_head_dim > 0) a.head_dim = m.global_head_dim;
  if (m.global_kv_heads > 0) a.num_kv_heads = m.global_kv_heads;
  a.k_eq_v = m.global_k_eq_v;
  return a;
}

auto count_params(const ModelArch& m) -> ParamCounts {
  ParamCounts p;
  const double h = as_double(m.hidden_size);
  const double moe_layers = as_double(m.moe_layers());
  const double dense_layers = as_double(m.num_layers) - (m.dense_mlp_beside_moe ? 0.0 : moe_layers);
  auto& mod = p.by_module;
  mod[index_of(Module::Embedding)] = as_double(m.vocab_size) * h;
  mod[index_of(Module::LmHead)] = m.tie_word_embeddings ? 0.0 : as_double(m.vocab_size) * h;
  mod[index_of(Module::Attention)] = h;  // the final norm
  for (const LayerGroup& g : m.layer_groups) {
    const Module module = g.linear ? Module::LinearAttention : Module::Attention;
    const double per_layer = g.linear ? linear_attention_params(m) : attention_params(m, g.attention());
    mod[index_of(module)] += as_double(g.count) * per_layer;
  }
  mod[index_of(Module::DenseMlp)] = dense_layers * mlp_params(m, m.intermediate_size);
  mod[index_of(Module::Router)] = moe_layers * h * as_double(m.num_experts);
  const double one_expert = mlp_params(m, m.expert_intermediate_size);
  mod[index_of(Module::Experts)] = moe_layers * as_double(m.num_experts) * one_expert;
  mod[index_of(Module::SharedExperts)] = moe_layers * mlp_params(m, m.shared_intermediate_size);
  for (double v : mod) p.total += v;
  p.active =
      p.total - mod[index_of(Module::Experts)] + moe_layers * as_double(m.experts_per_token) * one_expert;
  p.embedding = mod[index_of(Module::Embedding)];
  p.lm_head = mod[index_of(Module::LmHead)];
  p.non_embedding = p.total - p.embedding - p.lm_head;
  p.non_embedding_active = p.active - p.embedding - p.lm_head;
  return p;
}

auto kv_bytes_per_token_per_layer(const ModelArch& m, AttentionKind kind, double kv_bytes_per_element)
    -> double {
  return kv_elements_per_layer(m, kind) * kv_bytes_per_element;
}

auto kv_bytes_per_token(const ModelArch& m, double kv_bytes_per_element) -> double {
  return as_double(m.full_layers()) *
         kv_bytes_per_token_per_layer(m, AttentionKind::Full, kv_bytes_per_element);
}

auto kv_bytes_per_sequence(const ModelArch& m, double tokens, double kv_bytes_per_element) -> double {
  const double full = kv_bytes_per_token(m, kv_bytes_per_element) * tokens;
  if (m.sliding_layers() == 0) return full;
  const double windowed = std::min(tokens, as_double(m.sliding_window));
  return full + as_double(m.sliding_layers()) *
                    kv_bytes_per_token_per_layer(m, AttentionKind::Sliding, kv_bytes_per_element) * windowed;
}

auto kv_bytes_per_sequence_per_gpu(const ModelArch& m, double tokens, double kv_bytes_per_element,
                                   int tensor_parallel) -> double {
  const double tp = std::max(1, tensor_parallel);
  auto share = [&](AttentionKind kind) {
    if (m.mla) return 1.0;
    const double kv = as_double(attention_shape(m, kind).num_kv_heads);
    return kv > 0 ? std::max(1.0, kv / tp) / kv : 1.0;
  };
  const double full = as_double(m.full_layers()) * tokens *
                      kv_bytes_per_token_per_layer(m, AttentionKind::Full, kv_bytes_per_element) *
                      share(AttentionKind::Full);
  const double windowed = std::min(tokens, as_double(m.sliding_window));
  const double sliding = as_double(m.sliding_layers()) * windowed *
                         kv_bytes_per_token_per_layer(m, AttentionKind::Sliding, kv_bytes_per_element) *
                         share(AttentionKind::Sliding);
  return full + sliding;
}

auto recurrent_state_bytes_per_layer(const ModelArch& m, double bytes_per_element) -> double {
  if (!m.linear) return 0.0;
  const LinearAttentionShape& s = *m.linear;
  const double state_bytes = s.state_bytes_per_element > 0 ? s.state_bytes_per_element : bytes_per_element;
  const double state = as_double(s.num_value_heads * s.key_head_dim * s.value_head_dim) * state_bytes;
  const double conv =
      as_double(std::max<std::int64_t>(s.conv_kernel_dim - 1, 0) * s.conv_dim()) * bytes_per_element;
  return state + conv;
}

auto recurrent_state_bytes_per_request(const ModelArch& m, double bytes_per_element) -> double {
  return as_double(m.linear_layers()) * recurrent_state_bytes_per_layer(m, bytes_per_element);
}

auto routed_expert_bytes_per_layer(const ModelArch& m, double tokens, double bytes_per_weight) -> double {
  if (!m.is_moe()) return 0.0;
  const double active =
      expected_active_experts(as_double(m.num_experts), as_double(m.experts_per_token), tokens);
  return active * mlp_params(m, m.expert_intermediate_size) * bytes_per_weight;
}

}  // namespace solscope::ceiling
