#include "workload/detail/engine_layout.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace solscope::workload {
namespace {

auto sglang_layout(const EngineLaunch& launch, int tp) -> EngineLayout {
  EngineLayout l;
  l.tensor_parallel = tp;
  l.fallback_tensor_parallel = tp;
  const int dp = std::max(launch.data_parallel, 1);
  const int ep = launch.expert_parallel;
  if (launch.dp_attention && dp > 1) {
    if (tp % dp != 0) {
      l.note =
          fmt::format("SGLang --tp-size {} is not a multiple of --dp-size {}: modelled as TP {}", tp, dp, tp);
      return l;
    }
    l.tensor_parallel = tp / dp;
    l.attention_dp = dp;
    l.expert_parallel = tp;
    if (ep > 1 && ep != tp) {
      l.note = fmt::format("SGLang --ep-size {} inside --tp-size {}: modelled as EP {}", ep, tp, tp);
    } else if (ep <= 1) {
      l.note = fmt::format("MoE layers tensor-parallel over {} GPUs: modelled as EP {}", tp, tp);
    }
    return l;
  }
  if (ep > 1 && ep != tp) {
    l.note = fmt::format("SGLang --ep-size {} inside --tp-size {}: modelled as EP {}", ep, tp, tp);
    l.expert_parallel = tp;
  } else if (ep > 1) {
    l.expert_parallel = ep;
  }
  return l;
}

}  // namespace

auto engine_layout(const EngineLaunch& launch, int engine_tp) -> EngineLayout {
  const int tp = std::max(engine_tp, 1);
  EngineLayout l;
  l.tensor_parallel = tp;
  l.fallback_tensor_parallel = tp;
  if (launch.engine == EngineKind::Sglang) l = sglang_layout(launch, tp);
  if (launch.engine == EngineKind::Vllm && launch.expert_parallel > 1) {
    l.expert_parallel = launch.expert_parallel;
    l.attention_dp = launch.dp_attention ? std::max(launch.expert_parallel / tp, 1) : 1;
  }
  if (launch.engine != EngineKind::Tgi) l.pipeline_parallel = std::max(launch.pipeline_parallel, 1);
  return l;
}

}  // namespace solscope::workload
