// The shape of one engine step (which requests, how many new and cached tokens) and how it is run (tensor
// parallelism, dtypes, SM clock): the inputs of the ceiling model besides the GPU and the model.
//
// Notation from docs/design/ceiling-model.md section 2.1: request r computes q_r new tokens and holds c_r
// tokens in its KV cache after the step; T = sum q_r; R = requests that emit a token this step.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "ceiling/detail/dtype.hpp"
#include "core/result.hpp"
#include "core/step_phase.hpp"

namespace solscope::ceiling {

/// What a step does (core/step_phase.hpp: core::to_string and core::phase_from_string spell it).
using Phase = core::Phase;

/// `requests` identical requests in one step.
struct RequestGroup {
  std::int64_t requests = 1;  ///< number of such requests, >= 1
  std::int64_t new_tokens =
      1;  ///< q_r: tokens computed this step (1 when decoding, the chunk when prefilling)
  std::int64_t cached_tokens = 0;  ///< tokens already in the KV cache before the step; c_r = cached + new
  bool emits_token = true;         ///< the request samples a token at the end of the step (counts in R)
};

/// One engine step. A vLLM step under chunked prefill mixes decode groups and one prefill group.
struct Step {
  std::vector<RequestGroup> groups;
  bool training = false;  ///< forward + backward over every token; every position is scored by the LM head
};

/// How the step runs.
struct Workload {
  Step step;
  int tensor_parallel = 1;  ///< t, GPUs sharing each layer (Megatron column/row split, 2.2); 1-1024
  /// Expert-parallel degree (`--ep`): the routed experts of each MoE layer are split whole across this many
  /// GPUs, E / ep each, with all-to-all dispatch and combine (docs/design/ceiling-model.md 2.8); 1-1024.
  /// Without dp_attention it must be 1 or equal tensor_parallel (EP inside the TP group).
  int expert_parallel = 1;
  /// Attention data-parallel across the EP group (`--dp-attention`): ep / tp ranks each hold the full
  /// attention weights (split tp ways) and 1 / (ep / tp) of the step's requests (2.8).
  bool dp_attention = false;
  /// Pipeline-parallel degree (`--pp`): layers split into this many stages of ceil(L / pp) layers (2.8);
  /// 1-256.
  int pipeline_parallel = 1;
  /// Microbatches the step is cut into under pipeline parallelism; 0 = pipeline_parallel. The bubble is
  /// (pp - 1) / (m + pp - 1) of the step (2.8); 1-4096.
  int pp_microbatches = 0;
  std::optional<Dtype> dtype;  ///< overrides the checkpoint's weight and GEMM dtype (bf16, fp16, fp32 or fp8)
  std::optional<Dtype> kv_dtype;  ///< KV-cache dtype; default: the activation dtype (bf16/fp16)
  /// SM clock for the peaks in MHz; NaN = the GPU's tensor_spec_clock_mhz. A live monitor passes the clock
  /// measured over its window (docs/design/ceiling-model.md 1.3).
  double sm_clock_mhz = std::numeric_limits<double>::quiet_NaN();
};

/// Upper bounds on step shapes, to catch nonsense input before it overflows anything.
inline constexpr std::int64_t kMaxBatch = 1'000'000;
inline constexpr std::int64_t kMaxTokens = 100'000'000;

/// Largest Workload::tensor_parallel build_ops() and evaluate() accept (the smallest is 1).
inline constexpr int kMaxTensorParallel = 1024;
/// Largest Workload::expert_parallel and Workload::pipeline_parallel (and microbatches) accepted.
inline constexpr int kMaxExpertParallel = 1024;
inline constexpr int kMaxPipelineParallel = 256;
inline constexpr int kMaxMicrobatches = 4096;
/// Range of SM clocks in MHz that evaluate() accepts for Workload::sm_clock_mhz (and the spec file for its
/// clocks): wide enough for any GPU, narrow enough to catch a value in Hz or GHz.
inline constexpr double kMinSmClockMhz = 1.0;
inline constexpr double kMaxSmClockMhz = 10'000.0;

/// The step of the CLI's `--phase --batch --context --prompt`:
///  - decode: `batch` requests, each adding 1 token to `context` cached tokens (c = context + 1);
///  - prefill: `batch` requests, each computing `prompt` new tokens on top of `context` cached ones (a cached
///  prefix
///    or earlier chunks; usually 0), emitting their first token;
///  - train: `batch` sequences of `prompt` tokens (`context` must be 0).
/// Errors: InvalidArgument naming the value and its range (batch 1-1,000,000; context and prompt
/// 0-100,000,000; prefill and train need prompt >= 1).
[[nodiscard]] auto make_step(Phase phase, std::int64_t batch, std::int64_t context, std::int64_t prompt)
    -> core::Result<Step>;

/// Tokens of a step: T (computed), R (emitting a token) and sum c_r (held in the KV cache after it), each
/// over all requests.
struct StepTokens {
  double computed = 0;
  double emitted = 0;
  double cached_after = 0;
  double requests = 0;
  bool decode_only = true;  ///< every group computes one token per request
};

/// Sums the tokens of a step.
[[nodiscard]] auto count_tokens(const Step& step) -> StepTokens;

/// Checks a step: at least one group, each with 1-1,000,000 requests, 1-100,000,000 new tokens and
/// 0-100,000,000 cached ones. Errors: InvalidArgument naming the group and value.
[[nodiscard]] auto validate_step(const Step& step) -> core::Result<void>;

}  // namespace solscope::ceiling
