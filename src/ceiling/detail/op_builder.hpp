// OpBuilder: appends the operators of each layer group to a list (internal to src/ceiling; see
// operators.hpp).
#pragma once

#include <vector>

#include "ceiling/detail/operators.hpp"

namespace solscope::ceiling::detail {

/// Router output per routed token: an expert id and a weight (4 + 4 bytes) [G].
inline constexpr double kRouteBytes = 8.0;

/// Per-GPU sizes of one step: tokens, heads and widths after the TP split (docs/design/ceiling-model.md 2.2).
struct StepDims {
  double tokens = 0;        ///< T
  double emitted = 0;       ///< R: rows of the LM head
  double cached_after = 0;  ///< sum c_r
  bool decode_only = true;
  double tp = 1;
  double hidden = 0;          ///< h
  double heads = 0;           ///< n_q / t
  double kv_heads = 0;        ///< max(1, n_kv / t)
  double head_dim = 0;        ///< d
  double act_bytes = 2;       ///< b_a
  double ep = 1;              ///< expert-parallel ranks (2.8)
  double dp = 1;              ///< attention data-parallel ranks; tokens x dp meet at the MoE layer (2.8)
  double pp = 1;              ///< pipeline stages
  double layer_fraction = 1;  ///< share of the layers on this GPU's stage (2.8)
};

/// Operator names of one gated or plain MLP (dense layers or shared experts).
struct MlpNames {
  std::string_view up;
  std::string_view act;
  std::string_view down;
};

/// Appends operators for a model, a workload and its precision; one instance per step and layer group.
class OpBuilder {
 public:
  OpBuilder(const ModelArch& arch, const Workload& workload, const Precision& precision,
            const ArchEfficiency& arch_eff, const StepDims& dims, std::vector<Op>& out);

  /// Embedding, every layer group, final norm, LM head and logits.
  void build();

 private:
  void add_gemm(std::string_view name, Module module, double instances, GemmShape shape, bool sharded);
  void add_memory(std::string_view name, double instances, double bytes);
  /// An attention kernel: `work`'s math dtypes are filled in from the architecture's kernel families.
  void add_attention(std::string_view name, double instances, const AttentionFlops& work, double bytes);
  void add_all_reduce(double instances);
  void add_norm(std::string_view name, double instances, double width);

  void add_standard_attention(const LayerGroup& group);
  void add_mla_attention(const LayerGroup& group);
  void add_linear_attention(const LayerGroup& group);
  void add_dense_mlp(const MlpNames& names, double instances, double width, Module module);
  void add_moe(double instances);
  void add_model_ends();

  // Parallelism (op_builder_parallel.cpp; docs/design/ceiling-model.md 2.8).
  void add_all_to_all(std::string_view name, double instances, double bytes_sent);
  void add_pipeline_send();
  void scale_layers(std::size_t first, std::size_t last);

  const ModelArch& arch_;
  const Workload& workload_;
  const Precision& precision_;
  const ArchEfficiency& arch_eff_;
  StepDims dims_;
  std::vector<Op>& out_;
};

}  // namespace solscope::ceiling::detail
