// The parallelism operators of OpBuilder (docs/design/ceiling-model.md 2.8): expert-parallel MoE with its
// all-to-all dispatch and combine, the pipeline send, and the layer split of pipeline stages.
#include <cmath>

#include "ceiling/detail/op_builder.hpp"

namespace solscope::ceiling::detail {

/// Routed experts split whole across ep GPUs (E / ep each). The tokens of every attention rank (T x dp)
/// meet at the MoE layer; each GPU computes the T x dp x k / ep token-expert pairs routed to its experts,
/// over the E_act(T x dp) / ep distinct local experts they touch (uniform routing, 2.2). Dispatch and
/// combine each send (T x dp / ep) x k x h x b_a x (ep - 1) / ep bytes per GPU: the GPU's share of the
/// tokens, k copies each, the fraction bound for other GPUs.
void OpBuilder::add_expert_parallel_moe(double instances) {
  const double t = dims_.tokens;
  const double a = dims_.act_bytes;
  const double h = dims_.hidden;
  const double ep = dims_.ep;
  const double group_tokens = t * dims_.dp;
  const auto e = static_cast<double>(arch_.num_experts);
  const auto k = static_cast<double>(arch_.experts_per_token);
  const double active = expected_active_experts(e, k, group_tokens) / ep;
  const double routed = group_tokens * k / ep;
  const double per_expert = active > 0 ? routed / active : 0.0;
  const auto w = static_cast<double>(arch_.expert_intermediate_size);
  const bool gated = arch_.mlp == MlpKind::Gated;
  const double sent = group_tokens / ep * k * h * a * (ep - 1.0) / ep;
  add_gemm("router", Module::Router, instances, GemmShape{t, e, h, 1}, false);
  add_memory("topk_routing", instances, t * e * a + t * k * kRouteBytes);
  add_all_to_all("ep_dispatch", instances, sent);
  add_gemm("experts_gate_up", Module::Experts, instances,
           GemmShape{per_expert, gated ? 2.0 * w : w, h, active}, true);
  out_.back().group_multiplier = ep;
  add_memory("experts_act", instances, (gated ? 3.0 : 2.0) * routed * w * a);
  add_gemm("experts_down", Module::Experts, instances, GemmShape{per_expert, h, w, active}, true);
  out_.back().group_multiplier = ep;
  add_all_to_all("ep_combine", instances, sent);
  add_memory("moe_combine", instances, (k + 1.0) * t * h * a);
  if (arch_.shared_intermediate_size > 0) {
    add_dense_mlp(MlpNames{"shared_gate_up", "shared_act", "shared_down"}, instances,
                  static_cast<double>(arch_.shared_intermediate_size), Module::SharedExperts);
    add_all_reduce(instances);
  }
}

void OpBuilder::add_all_to_all(std::string_view name, double instances, double bytes_sent) {
  if (dims_.ep <= 1) return;
  Op op;
  op.name = name;
  op.kind = OpKind::Collective;
  op.collective = CollectiveKind::AllToAll;
  op.instances = instances;
  op.collective_bytes = bytes_sent;
  op.bytes = 2.0 * bytes_sent;  // read the send buffer, write the receive buffer [G]
  op.math = precision_.activation;
  out_.push_back(op);
}

/// One activation send of T x h x b_a bytes to the next stage per microbatch (2.8).
void OpBuilder::add_pipeline_send() {
  if (dims_.pp <= 1) return;
  Op op;
  op.name = "pp_send";
  op.kind = OpKind::Collective;
  op.collective = CollectiveKind::SendRecv;
  op.instances = 1;
  op.collective_bytes = dims_.tokens * dims_.hidden * dims_.act_bytes;
  op.bytes = op.collective_bytes;
  op.math = precision_.activation;
  out_.push_back(op);
}

/// A stage runs ceil(L / pp) of the L layers: the layer operators' instances shrink by that share, spread
/// evenly over the layer groups [G: real splits follow layer boundaries].
void OpBuilder::scale_layers(std::size_t first, std::size_t last) {
  if (dims_.layer_fraction >= 1.0) return;
  for (std::size_t i = first; i < last && i < out_.size(); ++i) out_[i].instances *= dims_.layer_fraction;
}

}  // namespace solscope::ceiling::detail
