// The operators of each layer (docs/design/ceiling-model.md 2.2, operators of one layer).
#include "ceiling/detail/op_builder.hpp"

#include <algorithm>
#include <cmath>

#include "ceiling/detail/attention_cost.hpp"

namespace solscope::ceiling::detail {
namespace {

auto as_double(std::int64_t v) -> double {
  return static_cast<double>(v);
}

/// Bytes of one logit: the sampler reads FP32 logits [G].
constexpr double kLogitBytes = 4.0;

}  // namespace

OpBuilder::OpBuilder(const ModelArch& arch, const Workload& workload, const Precision& precision,
                     const ArchEfficiency& arch_eff, const StepDims& dims, std::vector<Op>& out)
    : arch_(arch), workload_(workload), precision_(precision), arch_eff_(arch_eff), dims_(dims), out_(out) {}

void OpBuilder::add_gemm(std::string_view name, Module module, double instances, GemmShape shape,
                         bool sharded) {
  const std::size_t m = index_of(module);
  const double a = dims_.act_bytes;
  Op op;
  op.name = name;
  op.kind = OpKind::Gemm;
  op.module = module;
  op.instances = instances;
  op.gemm = shape;
  op.flops = 2.0 * shape.m * shape.n * shape.k * shape.groups;
  op.weight_bytes = shape.n * shape.k * shape.groups * precision_.weight_bytes[m];
  op.bytes = op.weight_bytes + (shape.m * shape.k + shape.m * shape.n) * shape.groups * a;
  op.math = precision_.math[m];
  op.sharded = sharded;
  out_.push_back(op);
}

void OpBuilder::add_memory(std::string_view name, double instances, double bytes) {
  Op op;
  op.name = name;
  op.kind = OpKind::Memory;
  op.instances = instances;
  op.bytes = bytes;
  op.math = precision_.activation;
  out_.push_back(op);
}

void OpBuilder::add_attention(std::string_view name, double instances, const AttentionFlops& work,
                              double bytes) {
  Op op;
  op.name = name;
  op.kind = OpKind::Attention;
  op.instances = instances;
  op.attention = work;
  op.attention.prefill_math = attention_math(precision_, arch_eff_.attention_kernels.prefill);
  const AttentionKernels& k = arch_eff_.attention_kernels;
  op.attention.decode_math = attention_math(precision_, work.mla ? k.mla_decode : k.decode);
  op.flops = work.prefill + work.decode;
  op.bytes = bytes;
  op.math = work.prefill > 0 || work.decode <= 0 ? op.attention.prefill_math : op.attention.decode_math;
  out_.push_back(op);
}

void OpBuilder::add_all_reduce(double instances) {
  if (dims_.tp <= 1) return;
  Op op;
  op.name = "tp_all_reduce";
  op.kind = OpKind::Collective;
  op.instances = instances;
  op.collective_bytes = dims_.tokens * dims_.hidden * dims_.act_bytes;
  op.bytes = 2.0 * op.collective_bytes;  // read the partial sums, write the result [G]
  op.math = precision_.activation;
  out_.push_back(op);
}

/// Fused residual add + RMSNorm: reads x and the residual, writes both, reads the weight vector.
void OpBuilder::add_norm(std::string_view name, double instances, double width) {
  add_memory(name, instances, 4.0 * dims_.tokens * width * dims_.act_bytes + width * dims_.act_bytes);
}

/// Softmax attention in the head shape of the group's kind (Gemma-4's full layers have their own, 3.4).
void OpBuilder::add_standard_attention(const LayerGroup& group) {
  const double n = as_double(group.count);
  const double t = dims_.tokens;
  const double a = dims_.act_bytes;
  const AttentionShape shape = attention_shape(arch_, group.attention());
  const double head_dim = as_double(shape.head_dim);
  const double qd = as_double(shape.num_heads) / dims_.tp * head_dim;
  const double kvd = std::max(1.0, as_double(shape.num_kv_heads) / dims_.tp) * head_dim;
  const double q_out = arch_.attn_output_gate ? 2.0 * qd : qd;  // query and its output gate
  const double kv_out = shape.k_eq_v ? kvd : 2.0 * kvd;         // V taken from K's projection
  add_norm("input_norm", n, dims_.hidden);
  add_gemm("qkv_proj", Module::Attention, n, GemmShape{t, q_out + kv_out, dims_.hidden, 1}, true);
  if (arch_.qk_norm) add_memory("qk_norm", n, 2.0 * t * (qd + kvd) * a);
  add_memory("rope", n, 2.0 * t * (qd + kvd) * a);
  add_memory("kv_cache_write", n, 2.0 * t * kvd * (a + precision_.kv_bytes));
  const AttentionWork w = attention_work(workload_.step, group.sliding ? arch_.sliding_window : 0,
                                         arch_eff_.attention_query_tile);
  // QK^T and PV: 2 x (d_qk + d_v) = 4d FLOPs per query head and pair. Decode packs the group of query heads
  // sharing a KV head into one tile's rows, padded to the kernel's query tile (2.7 "Kernel families").
  const double kv_heads = std::max(1.0, as_double(shape.num_kv_heads) / dims_.tp);
  const double group_rows = as_double(shape.num_heads) / dims_.tp / kv_heads;
  const int tile = arch_eff_.attention_kernels.decode.query_tile;
  AttentionFlops work;
  work.prefill = 4.0 * qd * (w.pairs - w.decode_pairs);
  work.decode = 4.0 * qd * w.decode_pairs;
  work.decode_padded = kv_heads * padded_query_rows(group_rows, tile) * 4.0 * head_dim * w.decode_pairs;
  const double bytes = w.kv_tokens_read * 2.0 * kvd * precision_.kv_bytes + 2.0 * t * qd * a;
  add_attention(group.sliding ? "attention_window" : "attention", n, work, bytes);
  if (arch_.attn_output_gate) add_memory("attention_gate", n, 3.0 * t * qd * a);
  add_gemm("o_proj", Module::Attention, n, GemmShape{t, dims_.hidden, qd, 1}, true);
  add_all_reduce(n);
  add_norm("post_attention_norm", n, dims_.hidden);
}

/// Gated DeltaNet (3.4): in_proj (q, k, v, z, a, b), causal conv over q, k and v, the delta-rule recurrence
/// on a state of n_v x d_k x d_v per request, gated RMSNorm and out_proj; heads split across TP ranks.
/// Decode runs the recurrence on the FMA pipes (linear_attention_state: read and write the state, no tensor
/// work); prefill chunks run the chunked form on the tensor pipe (linear_attention: per token 4 n_v d_k d_v
/// for the state terms plus 2 n_v C (d_k + d_v) inside each chunk of C = 64 tokens) [G].
void OpBuilder::add_linear_attention(const LayerGroup& group) {
  const LinearAttentionShape& s = *arch_.linear;
  const double n = as_double(group.count);
  const double t = dims_.tokens;
  const double a = dims_.act_bytes;
  const double tp = dims_.tp;
  const double nv = as_double(s.num_value_heads) / tp;
  const double dk = as_double(s.key_head_dim);
  const double dv = as_double(s.value_head_dim);
  const double conv = as_double(s.conv_dim()) / tp;
  const double vd = as_double(s.value_dim()) / tp;
  const double state = recurrent_state_bytes_per_layer(arch_, a) / tp;
  constexpr double kChunk = 64;  // chunk length of the chunked delta-rule kernels (fla) [G]
  double requests = 0;
  double prefill_tokens = 0;
  for (const RequestGroup& g : workload_.step.groups) {
    requests += as_double(g.requests);
    if (g.new_tokens > 1) prefill_tokens += as_double(g.requests * g.new_tokens);
  }
  add_norm("input_norm", n, dims_.hidden);
  add_gemm("linear_in_proj", Module::LinearAttention, n, GemmShape{t, conv + vd + 2.0 * nv, dims_.hidden, 1},
           true);
  add_memory("linear_conv", n, 2.0 * t * conv * a);
  add_memory("linear_attention_state", n, 2.0 * requests * state + t * (conv + vd) * a);
  if (prefill_tokens > 0) {
    const AttentionFlops work{.prefill = prefill_tokens * nv * (4.0 * dk * dv + 2.0 * kChunk * (dk + dv))};
    add_attention("linear_attention", n, work, prefill_tokens * (conv + vd) * a);
  }
  add_memory("linear_gated_norm", n, 3.0 * t * vd * a);
  add_gemm("linear_out_proj", Module::LinearAttention, n, GemmShape{t, dims_.hidden, vd, 1}, true);
  add_all_reduce(n);
  add_norm("post_attention_norm", n, dims_.hidden);
}

/// MLA (2.2): decode runs the absorbed form in latent space (reads kv_lora + rope elements per cached token);
/// prefill and training up-project K and V with kv_b_proj and run ordinary attention (vLLM's billing) [G].
void OpBuilder::add_mla_attention(const LayerGroup& group) {
  const MlaShape& s = *arch_.mla;
  const double n = as_double(group.count);
  const double t = dims_.tokens;
  const double a = dims_.act_bytes;
  const double h = dims_.hidden;
  const double heads = dims_.heads;
  const double qk = as_double(s.qk_nope_head_dim + s.qk_rope_head_dim);
  const double latent = as_double(s.kv_lora_rank + s.qk_rope_head_dim);
  const double lora = as_double(s.kv_lora_rank);
  const double v = as_double(s.v_head_dim);
  add_norm("input_norm", n, h);
  if (s.q_lora_rank > 0) {
    const double q_lora = as_double(s.q_lora_rank);
    add_gemm("q_a_proj", Module::Attention, n, GemmShape{t, q_lora, h, 1}, false);
    add_memory("q_a_norm", n, 2.0 * t * q_lora * a);
    add_gemm("q_b_proj", Module::Attention, n, GemmShape{t, heads * qk, q_lora, 1}, true);
  } else {
    add_gemm("q_proj", Module::Attention, n, GemmShape{t, heads * qk, h, 1}, true);
  }
  add_gemm("kv_a_proj", Module::Attention, n, GemmShape{t, latent, h, 1}, false);
  add_memory("kv_a_norm", n, 2.0 * t * lora * a);
  add_memory("rope", n, 2.0 * t * (heads + 1.0) * as_double(s.qk_rope_head_dim) * a);
  add_memory("kv_cache_write", n, t * latent * (a + precision_.kv_bytes));
  const AttentionWork w = attention_work(workload_.step, 0, arch_eff_.attention_query_tile);
  if (dims_.decode_only) {
    const double nope = as_double(s.qk_nope_head_dim);
    add_gemm("q_absorb", Module::Attention, n, GemmShape{t, lora, nope, heads}, true);
    // Absorbed form: every query head shares the one latent "KV head", so all heads per GPU fill the rows.
    const double bytes = w.kv_tokens_read * latent * precision_.kv_bytes + t * heads * (latent + lora) * a;
    const double per_row = 2.0 * (latent + lora) * w.pairs;
    const int tile = arch_eff_.attention_kernels.mla_decode.query_tile;
    const AttentionFlops work{
        .decode = heads * per_row, .decode_padded = padded_query_rows(heads, tile) * per_row, .mla = true};
    add_attention("attention", n, work, bytes);
    add_gemm("o_absorb", Module::Attention, n, GemmShape{t, v, lora, heads}, true);
  } else {
    add_gemm("kv_b_proj", Module::Attention, n,
             GemmShape{dims_.cached_after, heads * (as_double(s.qk_nope_head_dim) + v), lora, 1}, true);
    // Non-absorbed form, costed as prefill for every request of the step (decoders included) [G].
    const double bytes = (w.kv_tokens_read + t) * heads * (qk + v) * a;
    add_attention("attention", n, AttentionFlops{.prefill = 2.0 * heads * (qk + v) * w.pairs}, bytes);
  }
  add_gemm("o_proj", Module::Attention, n, GemmShape{t, h, heads * v, 1}, true);
  add_all_reduce(n);
  add_norm("post_attention_norm", n, h);
}

void OpBuilder::add_dense_mlp(const MlpNames& names, double instances, double width, Module module) {
  const double t = dims_.tokens;
  const double a = dims_.act_bytes;
  const double w = std::ceil(width / dims_.tp);
  const bool gated = arch_.mlp == MlpKind::Gated;
  add_gemm(names.up, module, instances, GemmShape{t, gated ? 2.0 * w : w, dims_.hidden, 1}, true);
  add_memory(names.act, instances, (gated ? 3.0 : 2.0) * t * w * a);
  add_gemm(names.down, module, instances, GemmShape{t, dims_.hidden, w, 1}, true);
}

/// The MoE block (2.2, 2.8). Without expert parallelism (ep 1) TP splits each expert's width across
/// ranks. Under ep > 1 the routed experts split whole across ep GPUs (E / ep each): the tokens of every
/// attention rank (T x dp) meet at the MoE layer and each GPU computes the T x dp x k / ep token-expert
/// pairs routed to its experts, over the E_act(T x dp) / ep distinct local experts they touch (uniform
/// routing); dispatch and combine each send (T x dp / ep) x k x h x b_a x (ep - 1) / ep bytes per GPU
/// (the GPU's share of the tokens, k copies each, the fraction bound for other GPUs). Shared experts
/// stay TP-split in both cases.
void OpBuilder::add_moe(double instances) {
  const double t = dims_.tokens;
  const double a = dims_.act_bytes;
  const double h = dims_.hidden;
  const double ep = dims_.ep;
  const bool expert_parallel = ep > 1;
  const double group_tokens = expert_parallel ? t * dims_.dp : t;
  const double e = as_double(arch_.num_experts);
  const double k = as_double(arch_.experts_per_token);
  const double active = expected_active_experts(e, k, group_tokens) / ep;
  const double routed = group_tokens * k / ep;
  const double per_expert = active > 0 ? routed / active : 0.0;
  const double width = as_double(arch_.expert_intermediate_size);
  const double w = expert_parallel ? width : std::ceil(width / dims_.tp);
  const bool gated = arch_.mlp == MlpKind::Gated;
  const double sent = group_tokens / ep * k * h * a * (ep - 1.0) / ep;
  // Model FLOPs of the expert GEMMs count once per EP rank; 0 keeps the TP rule (2.8).
  const double expert_group = expert_parallel ? ep : 0.0;
  add_gemm("router", Module::Router, instances, GemmShape{t, e, h, 1}, false);
  add_memory("topk_routing", instances, t * e * a + t * k * kRouteBytes);
  add_all_to_all("ep_dispatch", instances, sent);
  // Each expert's tokens are Binomial(group_tokens, k / E); the kernel pads them per expert (2.7).
  const ExpertRouting routing{group_tokens, e > 0 ? k / e : 0.0, e, e / ep};
  add_gemm("experts_gate_up", Module::Experts, instances,
           GemmShape{per_expert, gated ? 2.0 * w : w, h, active}, true);
  out_.back().group_multiplier = expert_group;
  out_.back().routing = routing;
  add_memory("experts_act", instances, (gated ? 3.0 : 2.0) * routed * w * a);
  add_gemm("experts_down", Module::Experts, instances, GemmShape{per_expert, h, w, active}, true);
  out_.back().group_multiplier = expert_group;
  out_.back().routing = routing;
  add_all_to_all("ep_combine", instances, sent);
  add_memory("moe_combine", instances, (k + 1.0) * t * h * a);
  if (arch_.shared_intermediate_size > 0) {
    add_dense_mlp(MlpNames{"shared_gate_up", "shared_act", "shared_down"}, instances,
                  as_double(arch_.shared_intermediate_size), Module::SharedExperts);
  }
}

void OpBuilder::add_model_ends() {
  const double t = dims_.tokens;
  const double h = dims_.hidden;
  const double emb_bytes = precision_.weight_bytes[index_of(Module::Embedding)];
  add_memory("embedding", 1, t * h * (emb_bytes + dims_.act_bytes));
  add_all_reduce(1);  // vocab-parallel embedding sums its partial rows
}

void OpBuilder::build() {
  add_model_ends();
  const MlpNames dense_names = arch_.mlp == MlpKind::Gated ? MlpNames{"gate_up_proj", "mlp_act", "down_proj"}
                                                           : MlpNames{"up_proj", "mlp_act", "down_proj"};
  const std::size_t first_layer_op = out_.size();
  for (const LayerGroup& group : arch_.layer_groups) {
    if (group.linear) {
      add_linear_attention(group);
    } else if (arch_.mla) {
      add_mla_attention(group);
    } else {
      add_standard_attention(group);
    }
    const auto n = as_double(group.count);
    if (group.moe) add_moe(n);
    // Gemma-4: the dense MLP runs beside the experts in the same layer (3.5).
    const bool dense_mlp = !group.moe || arch_.dense_mlp_beside_moe;
    if (dense_mlp) add_dense_mlp(dense_names, n, as_double(arch_.intermediate_size), Module::DenseMlp);
    // Under EP the all-to-all combine replaces the routed experts' all-reduce; TP-split shared experts and
    // a dense MLP still sum their partial rows (2.8).
    const bool tp_partial_sums = dims_.ep <= 1 || dense_mlp || arch_.shared_intermediate_size > 0;
    if (tp_partial_sums) add_all_reduce(n);
  }
  scale_layers(first_layer_op, out_.size());
  add_pipeline_send();
  const double r = dims_.emitted;
  const double vocab = std::ceil(as_double(arch_.vocab_size) / dims_.tp);
  add_norm("final_norm", 1, dims_.hidden);
  if (r <= 0) return;  // a prefill chunk that does not finish its prompt samples nothing
  add_gemm("lm_head", Module::LmHead, 1, GemmShape{r, vocab, dims_.hidden, 1}, true);
  add_memory("logits", 1, 2.0 * r * vocab * kLogitBytes);
}

}  // namespace solscope::ceiling::detail
