#include "ceiling/parallel.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace solscope::ceiling {
namespace {

auto bad(std::string message, std::string hint) -> core::Unexpected<core::Error> {
  return core::fail(core::ErrorCode::InvalidArgument, std::move(message), std::move(hint));
}

auto check_expert_parallel(const ModelArch& arch, const Workload& w) -> core::Result<void> {
  const int ep = w.expert_parallel;
  const int tp = w.tensor_parallel;
  if (ep < 1 || ep > kMaxExpertParallel) {
    return bad("--ep " + std::to_string(ep) + " is out of range", "use 1 to 1024");
  }
  if (ep > 1 && !arch.is_moe()) {
    return bad("--ep " + std::to_string(ep) + " needs a mixture-of-experts model", "leave --ep at 1");
  }
  if (ep > 1 && arch.num_experts % ep != 0) {
    return bad("--ep " + std::to_string(ep) + " does not divide the " + std::to_string(arch.num_experts) +
                   " experts",
               "use a divisor of the expert count");
  }
  if (w.dp_attention) {
    if (ep < tp || ep % tp != 0) {
      return bad("--dp-attention needs --ep to be a multiple of --tp (ep " + std::to_string(ep) + ", tp " +
                     std::to_string(tp) + ")",
                 "attention runs ep / tp data-parallel ranks of tp GPUs each; e.g. --tp 1 --ep 8");
    }
  } else if (ep > 1 && ep != tp) {
    return bad("--ep " + std::to_string(ep) + " without --dp-attention must equal --tp " + std::to_string(tp),
               "add --dp-attention to spread attention over the EP group, or set --tp to the EP degree");
  }
  return core::ok();
}

}  // namespace

auto parallel_layout(const ModelArch& arch, const Workload& w) -> core::Result<ParallelLayout> {
  if (auto ep = check_expert_parallel(arch, w); !ep) return core::propagate(ep);
  const std::int64_t layers = std::max<std::int64_t>(arch.num_layers, 1);
  if (w.pipeline_parallel < 1 || w.pipeline_parallel > kMaxPipelineParallel || w.pipeline_parallel > layers) {
    return bad("--pp " + std::to_string(w.pipeline_parallel) + " is out of range",
               "use 1 to min(256, the model's " + std::to_string(layers) + " layers)");
  }
  if (w.pp_microbatches < 0 || w.pp_microbatches > kMaxMicrobatches) {
    return bad("--pp-microbatches " + std::to_string(w.pp_microbatches) + " is out of range",
               "use 1 to 4096 (0 = the --pp degree)");
  }
  ParallelLayout l;
  l.tp = std::max(w.tensor_parallel, 1);
  l.ep = w.expert_parallel;
  l.dp = w.dp_attention ? l.ep / l.tp : 1;
  l.pp = w.pipeline_parallel;
  l.microbatches = l.pp > 1 ? (w.pp_microbatches > 0 ? w.pp_microbatches : l.pp) : 1;
  l.gpus_per_stage = l.tp * l.dp;
  l.gpus = l.gpus_per_stage * l.pp;
  const auto stage_layers = (layers + l.pp - 1) / l.pp;
  l.layer_fraction = static_cast<double>(stage_layers) / static_cast<double>(layers);
  l.bubble_fraction = static_cast<double>(l.pp - 1) / static_cast<double>(l.microbatches + l.pp - 1);
  return l;
}

auto rank_step(const Step& step, int divisor) -> Step {
  Step out = step;
  if (divisor <= 1) return out;
  for (RequestGroup& g : out.groups) g.requests = (g.requests + divisor - 1) / divisor;
  return out;
}

}  // namespace solscope::ceiling
