// The serving ceiling: steady-state continuous batching with chunked prefill (docs/design/ceiling-model.md
// section 6). `concurrency` requests are in flight, each with `input_tokens` prompt tokens and
// `output_tokens` generated tokens; a finished request is replaced at once (a closed loop, as `vllm bench
// serve --max-concurrency` drives it). Every engine step runs all decoding requests (1 token each) and fills
// the rest of the token budget with prefill chunks, as vLLM V1's scheduler does (vllm/v1/core/sched/
// scheduler.py: running requests first, then waiting ones, up to max_num_batched_tokens per step).
//
// plan_serving() is the pure arithmetic of the mix (requests per step from Little's law, decode batch,
// prefill tokens per step, fraction of steps carrying a prefill chunk); evaluate_serving() costs the two
// representative steps (a step with prefill chunks, a decode-only step) with evaluate() and combines them
// with combine_steps().
//
// Example:
//   ServeTraffic t{.input_tokens = 1024, .output_tokens = 256, .concurrency = 64};
//   auto s = evaluate_serving(db, *gpu, arch, Workload{}, t);   // s->output_tokens_per_s, s->tpot_s
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ceiling/ceiling.hpp"
#include "ceiling/gpu_spec.hpp"
#include "ceiling/model_arch.hpp"
#include "ceiling/workload.hpp"
#include "core/result.hpp"

namespace solscope::ceiling {

/// Largest token budget per step accepted (10 M tokens: far above any engine's setting).
inline constexpr std::int64_t kMaxBatchedTokens = 10'000'000;
/// Largest prompt or output length per request accepted (1 M tokens).
inline constexpr std::int64_t kMaxServeSequenceTokens = 1'000'000;

/// The traffic a server sees in steady state.
struct ServeTraffic {
  std::int64_t input_tokens = 1;  ///< isl: prompt tokens per request, 1-1,000,000
  std::int64_t output_tokens =
      1;  ///< osl: generated tokens per request (the first comes from prefill), 1-1,000,000
  std::int64_t concurrency = 1;  ///< requests in flight, 1-1,000,000 (kMaxBatch)
  /// Token budget per step (vLLM --max-num-batched-tokens), 1-10,000,000; 0 = default_max_batched_tokens().
  std::int64_t max_batched_tokens = 0;
};

/// vLLM's default token budget of `vllm serve` (usage context OPENAI_API_SERVER) for `gpu`: 8192 on GPUs with
/// at least 70 GiB of memory that are not A100s, else 2048 (vLLM `EngineArgs.get_batch_defaults`,
/// vllm/engine/arg_utils.py; the offline `LLM` class uses 16384 / 8192 instead).
[[nodiscard]] auto default_max_batched_tokens(const GpuSpec& gpu) -> std::int64_t;

/// The steady-state step mix (section 6.2). Per step means; requests and tokens are fractional.
struct ServeMix {
  double requests_per_step = 0;          ///< lambda: requests finishing (and starting) per step
  double decode_batch = 0;               ///< n_d: decoding requests per step, lambda (osl - 1)
  double prefill_tokens_per_step = 0;    ///< P: lambda isl
  double prefill_step_fraction = 0;      ///< f_p: share of steps carrying a prefill chunk, 0-1
  double prefill_requests_per_step = 0;  ///< requests with a chunk in a prefill-carrying step, >= 1
  double chunk_tokens = 0;               ///< c: tokens per prefill chunk, isl / s_p
  double prefill_steps_per_request = 0;  ///< s_p: steps a prompt is spread over, >= 1
  double chunk_cached_tokens = 0;        ///< mean tokens cached before a chunk, (isl - c) / 2
  double prefill_step_decoders = 0;      ///< decoding requests in a prefill-carrying step
  double decode_step_decoders = 0;       ///< decoding requests in a decode-only step (C when f_p < 1)
  double waiting_requests = 0;           ///< requests queued before their prefill (budget-bound only)
  double first_token_steps = 0;          ///< steps from arrival to the first token: C / lambda - (osl - 1)
  bool budget_bound = false;             ///< every step is full (B tokens); otherwise concurrency-bound
};

/// The mix of `traffic` with budget `budget_tokens` (section 6.2). Errors: InvalidArgument naming the value
/// and its range for isl, osl, concurrency or budget out of range.
[[nodiscard]] auto plan_serving(const ServeTraffic& traffic, std::int64_t budget_tokens)
    -> core::Result<ServeMix>;

/// The serving ceiling on one GPU of the TP group.
struct ServeCeiling {
  ServeTraffic traffic;         ///< as given, with max_batched_tokens resolved
  bool default_budget = false;  ///< the budget is default_max_batched_tokens()
  ServeMix mix;
  Ceiling prefill_step;  ///< decoders plus prefill chunks (meaningful when has_prefill_step)
  Ceiling decode_step;   ///< decoders only (meaningful when has_decode_step)
  bool has_prefill_step = false;
  bool has_decode_step = false;
  /// Attainable Compute SOL as the tensor-pipe counter reads it (padded MMA work over time); the line users
  /// compare their live Compute SOL with. Filled from Ceiling::busy_s (serving.cpp step_figures()).
  double activity_compute_sol_pct = 0;
  /// Useful Compute SOL: model FLOPs over the dense peak of the main GEMM dtype (MFU), 0-100.
  double useful_compute_sol_pct = 0;
  double memory_sol_pct = 0;                       ///< DRAM traffic over spec bandwidth, 0-100
  std::array<double, kLimiterCount> time_share{};  ///< of the mix's time per resource, sums to 1
  Limiter limiter = Limiter::Memory;
  double mean_step_time_s = 0;
  double requests_per_s = 0;
  double output_tokens_per_s = 0;  ///< generated tokens per second of the whole TP group
  double total_tokens_per_s =
      0;  ///< prompt + generated tokens per second (vLLM bench's "total token throughput")
  double tpot_s =
      std::numeric_limits<double>::quiet_NaN();  ///< time per output token after the first; NaN when osl = 1
  double ttft_s = 0;              ///< time to first token: queueing plus the prompt's chunk steps
  double prefill_time_share = 0;  ///< share of time spent on prefill work, 0-1 (section 6.3)
  double decode_time_share = 0;   ///< 1 - prefill_time_share
  std::vector<std::string>
      notes;         ///< the steps' notes, deduplicated (one "does not fit"), plus the model's own
  bool fits = true;  ///< every costed step fits the GPU's memory (Ceiling::fits); the note gives the numbers
};

/// Costs `traffic` for `arch` on `gpu` with the TP degree, dtypes and clock of `base` (its step is ignored).
/// Errors: plan_serving's and evaluate()'s. About 2 evaluate() calls: well under 1 ms
/// (bench/ceiling_bench.cpp).
[[nodiscard]] auto evaluate_serving(const GpuDatabase& db, const GpuSpec& gpu, const ModelArch& arch,
                                    const Workload& base, const ServeTraffic& traffic)
    -> core::Result<ServeCeiling>;

}  // namespace solscope::ceiling
