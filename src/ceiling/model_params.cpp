// Parameter and KV-cache sizes of a ModelArch (docs/design/ceiling-model.md 2.2 shapes, 3.3 conventions).
#include <algorithm>

#include "ceiling/model_arch.hpp"

namespace solscope::ceiling {
namespace {

auto as_double(std::int64_t v) -> double {
  return static_cast<double>(v);
}

/// Attention weights of one layer, with the two RMSNorm vectors of the layer.
auto attention_params(const ModelArch& m) -> double {
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
  const double d = as_double(m.head_dim);
  const double qkv_out = as_double(m.num_heads + 2 * m.num_kv_heads) * d;
  const double bias = m.qkv_bias ? qkv_out : 0.0;
  const double qk_norm = m.qk_norm ? 2.0 * d : 0.0;
  return h * qkv_out + bias + as_double(m.num_heads) * d * h + qk_norm + norms;
}

/// KV-cache elements one token holds in one layer: 2 n_kv d (K and V), or kv_lora_rank + qk_rope_head_dim for
/// MLA's latent cache (2.2).
auto kv_elements_per_layer(const ModelArch& m) -> double {
  if (m.mla) return as_double(m.mla->kv_lora_rank + m.mla->qk_rope_head_dim);
  return 2.0 * as_double(m.num_kv_heads) * as_double(m.head_dim);
}

auto mlp_params(const ModelArch& m, std::int64_t width) -> double {
  const double matrices = m.mlp == MlpKind::Gated ? 3.0 : 2.0;
  return matrices * as_double(m.hidden_size) * as_double(width);
}

}  // namespace

auto to_string(Module module) -> std::string_view {
  switch (module) {
    case Module::Embedding:
      return "embedding";
    case Module::Attention:
      return "attention";
    case Module::DenseMlp:
      return "dense_mlp";
    case Module::Router:
      return "router";
    case Module::Experts:
      return "experts";
    case Module::SharedExperts:
      return "shared_experts";
    case Module::LmHead:
      return "lm_head";
    case Module::kCount:
      break;
  }
  return "unknown";
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

auto count_params(const ModelArch& m) -> ParamCounts {
  ParamCounts p;
  const double h = as_double(m.hidden_size);
  const double moe_layers = as_double(m.moe_layers());
  const double dense_layers = as_double(m.num_layers) - moe_layers;
  auto& mod = p.by_module;
  mod[index_of(Module::Embedding)] = as_double(m.vocab_size) * h;
  mod[index_of(Module::LmHead)] = m.tie_word_embeddings ? 0.0 : as_double(m.vocab_size) * h;
  mod[index_of(Module::Attention)] = as_double(m.num_layers) * attention_params(m) + h;
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

auto kv_bytes_per_token(const ModelArch& m, double kv_bytes_per_element) -> double {
  const double full_layers = as_double(m.num_layers - m.sliding_layers());
  return full_layers * kv_elements_per_layer(m) * kv_bytes_per_element;
}

auto kv_bytes_per_sequence(const ModelArch& m, double tokens, double kv_bytes_per_element) -> double {
  const double full = kv_bytes_per_token(m, kv_bytes_per_element) * tokens;
  if (m.sliding_layers() == 0) return full;
  const double windowed = std::min(tokens, as_double(m.sliding_window));
  return full + as_double(m.sliding_layers()) * kv_elements_per_layer(m) * kv_bytes_per_element * windowed;
}

}  // namespace solscope::ceiling
