// The parallel layout of a discovered serving engine, in the ceiling model's terms
// (docs/design/ceiling-model.md 2.8, 4.5): the attention TP group, the MoE layers' EP degree, attention data
// parallelism and pipeline stages, from the engine's own settings.
//
// Engine semantics (each engine's documentation):
//  - vLLM: `--tensor-parallel-size` T per DP rank; with `--enable-expert-parallel` the MoE layers run EP over
//    T x DP GPUs and attention stays data-parallel across the DP ranks ("Expert Parallel Deployment", "Data
//    Parallel Deployment"). Without EP, DP ranks are replicas.
//  - SGLang: `--tp-size` T is the whole group; with `--enable-dp-attention` and `--dp-size` D attention runs
//  D
//    ranks of T / D GPUs while the MoE layers span all T (EP with `--ep-size` T, else TP over T, which holds
//    the same expert bytes per GPU and is modelled as EP T) ("Server arguments", "DP, DPA and sgl-router").
//  - TGI: shards = TP.
#pragma once

#include <string>

#include "workload/detail/engine_cmdline.hpp"

namespace solscope::workload {

/// One engine's layout. Every degree is 1-1024; 1 means "not used".
struct EngineLayout {
  int tensor_parallel = 1;    ///< GPUs per attention rank (the ceiling's --tp)
  int expert_parallel = 1;    ///< EP degree of the MoE layers (the ceiling's --ep)
  int attention_dp = 1;       ///< attention data-parallel ranks (> 1: the ceiling's --dp-attention)
  int pipeline_parallel = 1;  ///< pipeline stages (the ceiling's --pp)
  /// The TP degree to model instead when the model cannot take this layout (a dense model under EP, an
  /// expert count EP does not divide): vLLM's T, SGLang's --tp-size.
  int fallback_tensor_parallel = 1;
  std::string note;  ///< how an engine setting was approximated; empty when read as is
};

/// The layout of `launch` (whose fields the endpoint's answer already overrode) when the engine's TP degree
/// resolved to `engine_tp` (1-1024; the endpoint's, else the command line's, else the engine default).
[[nodiscard]] auto engine_layout(const EngineLaunch& launch, int engine_tp) -> EngineLayout;

}  // namespace solscope::workload
