// How a workload is spread over GPUs: tensor, expert, attention-data and pipeline parallelism
// (docs/design/ceiling-model.md 2.8).
#pragma once

#include "ceiling/model_arch.hpp"
#include "ceiling/workload.hpp"
#include "core/result.hpp"

namespace solscope::ceiling {

/// The GPUs of one model replica and how each operator's work is divided among them.
struct ParallelLayout {
  int tp = 1;                  ///< tensor-parallel ranks of attention and dense layers
  int ep = 1;                  ///< expert-parallel ranks; E / ep experts per GPU
  int dp = 1;                  ///< attention data-parallel ranks (ep / tp with --dp-attention, else 1)
  int pp = 1;                  ///< pipeline stages
  int microbatches = 1;        ///< microbatches per step (pp > 1), else 1
  int gpus_per_stage = 1;      ///< tp x dp
  int gpus = 1;                ///< tp x dp x pp
  double layer_fraction = 1;   ///< ceil(L / pp) / L: the share of the layers the busiest stage holds
  double bubble_fraction = 0;  ///< (pp - 1) / (m + pp - 1)
};

/// Checks and derives the layout. Errors (InvalidArgument, naming the value and what to use instead): ep
/// outside 1-1024 or > 1 for a dense model or not dividing the expert count; ep other than 1 or tp without
/// dp_attention; dp_attention with ep not a multiple of tp; pp outside 1-256 or above the layer count;
/// microbatches outside 0-4096.
[[nodiscard]] auto parallel_layout(const ModelArch& arch, const Workload& workload)
    -> core::Result<ParallelLayout>;

/// The step one GPU runs per microbatch: each group's requests divided by `divisor` (dp x microbatches),
/// rounded up, so a group with fewer requests than ranks is counted whole on each (conservative).
[[nodiscard]] auto rank_step(const Step& step, int divisor) -> Step;

}  // namespace solscope::ceiling
