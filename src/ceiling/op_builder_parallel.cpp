// The parallelism operators of OpBuilder (docs/design/ceiling-model.md 2.8): the expert-parallel all-to-all
// dispatch and combine (used by add_moe), the pipeline send, and the layer split of pipeline stages.
#include "ceiling/detail/op_builder.hpp"

namespace solscope::ceiling::detail {

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
