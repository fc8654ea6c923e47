// The live shape of a serving engine from its Prometheus /metrics, per docs/design/ceiling-model.md
// section 4.4: token rates from counter deltas over the refresh window, running and waiting requests,
// KV-cache usage, mean context, and mean request lengths; and the step shape (phase, batch, context, prompt)
// it suggests for the ceiling model.
//
// Series read (docs/design/ceiling-model.md 4.1-4.3; vLLM `v1/metrics/loggers.py`, docs.sglang.io production
// metrics, TGI metrics reference):
//  - vLLM: vllm:num_requests_running, vllm:num_requests_waiting, vllm:kv_cache_usage_perc (old name
//    vllm:gpu_cache_usage_perc; a 0-1 fraction despite its name), vllm:prompt_tokens_total,
//    vllm:generation_tokens_total, vllm:prefix_cache_hits_total (old vllm:gpu_prefix_cache_hits_total),
//    vllm:iteration_tokens_total_count (engine steps), vllm:request_prompt_tokens_{sum,count},
//    vllm:request_generation_tokens_{sum,count}, vllm:cache_config_info{num_gpu_blocks, block_size},
//    vllm:estimated_flops_per_gpu_total (advances only with --enable-mfu-metrics; vllm/v1/metrics/perf.py).
//  - SGLang: sglang:num_running_reqs, sglang:num_queue_reqs, sglang:token_usage (0-1),
//  sglang:num_used_tokens,
//    sglang:prompt_tokens_total, sglang:generation_tokens_total, sglang:cached_tokens_total,
//    sglang:prompt_tokens_histogram_{sum,count}, sglang:generation_tokens_histogram_{sum,count},
//    sglang:estimated_flops_per_gpu_total (SGLang metrics collector).
//  - TGI: tgi_batch_current_size, tgi_queue_size, tgi_request_input_length_{sum,count},
//    tgi_request_generated_tokens_{sum,count}, tgi_batch_inference_count. TGI has no token counters: its
//    token rates are the rates of those histograms' sums, which advance when requests are admitted (input) or
//    finish (generated), so they lag the GPU's work by up to a request's lifetime.
// Series of one name are summed (requests, tokens) or averaged (usage fractions) over their label sets.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "core/raw_sample.hpp"
#include "core/step_phase.hpp"
#include "net/prometheus_text.hpp"
#include "workload/detail/engine_cmdline.hpp"

namespace solscope::workload {

/// What an engine step does (core/step_phase.hpp, shared with the ceiling model).
using Phase = core::Phase;

/// Largest batch and token counts accepted, the ceiling model's limits (ceiling/workload.hpp kMaxBatch and
/// kMaxTokens).
inline constexpr std::int64_t kMaxShapeBatch = 1'000'000;
inline constexpr std::int64_t kMaxShapeTokens = 100'000'000;

/// The step the ceiling model evaluates, as `ceiling::make_step(phase, batch, context, prompt)` takes it.
struct WorkloadShape {
  Phase phase = Phase::Decode;
  std::int64_t batch = 1;    ///< requests per step, 1-1,000,000
  std::int64_t context = 0;  ///< tokens already cached per request, 0-100,000,000
  std::int64_t prompt = 0;   ///< new tokens per request when prefilling or training (>= 1 there), else 0
};

/// An unknown figure: NaN, never 0 (core/raw_sample.hpp).
using core::kUnknown;

/// The cumulative series of one scrape. NaN where the engine does not export the series.
struct EngineCounters {
  double time_s = kUnknown;                ///< when it was scraped, seconds on the caller's monotonic clock
  double running = kUnknown;               ///< requests in the running batch (gauge)
  double waiting = kUnknown;               ///< queued requests (gauge)
  double kv_usage_ratio = kUnknown;        ///< KV-cache occupancy 0-1 (gauge)
  double kv_capacity_tokens = kUnknown;    ///< KV-cache size in tokens (vLLM: num_gpu_blocks x block_size)
  double kv_used_tokens = kUnknown;        ///< tokens held in the KV cache (SGLang num_used_tokens)
  double prompt_tokens = kUnknown;         ///< counter
  double generation_tokens = kUnknown;     ///< counter
  double cached_prompt_tokens = kUnknown;  ///< counter: prompt tokens served from the prefix cache
  double steps = kUnknown;           ///< counter: engine steps (vLLM iteration histogram count, TGI batches)
  double prompt_len_sum = kUnknown;  ///< histogram sum of prompt lengths, tokens
  double prompt_len_count = kUnknown;
  double generation_len_sum = kUnknown;  ///< histogram sum of generated lengths, tokens
  double generation_len_count = kUnknown;
  double engine_flops = kUnknown;  ///< counter: the engine's own FLOP estimate per GPU (vLLM, SGLang)
};

/// The series names an engine's counters need: pass them to net::parse_prometheus_text() as `wanted`.
[[nodiscard]] auto metric_names(EngineKind engine) -> std::span<const std::string_view>;

/// Extracts one scrape's counters (see the file comment for the series). `time_s` is stored as is.
[[nodiscard]] auto read_engine_counters(EngineKind engine, std::span<const net::PromSample> samples,
                                        double time_s) -> EngineCounters;

/// The shape of the traffic over one refresh window. NaN = unknown (rates need two scrapes).
struct LiveShape {
  double window_s = kUnknown;          ///< seconds between the two scrapes
  double running_requests = kUnknown;  ///< at the latest scrape
  double waiting_requests = kUnknown;
  double prompt_tokens_per_s = kUnknown;           ///< d(prompt tokens)/dt
  double computed_prompt_tokens_per_s = kUnknown;  ///< d(prompt - prefix-cache hits)/dt (4.4 step 1)
  double generation_tokens_per_s = kUnknown;       ///< d(generated tokens)/dt
  double steps_per_s = kUnknown;                   ///< engine steps per second
  double kv_usage_pct = kUnknown;                  ///< KV-cache occupancy 0-100 at the latest scrape
  double mean_context_tokens = kUnknown;           ///< KV tokens per running request (4.4 step 3)
  double mean_prompt_tokens = kUnknown;            ///< mean prompt length of the requests the histogram saw
  double mean_generation_tokens = kUnknown;        ///< mean generated length of the finished requests
  double engine_flops_per_s = kUnknown;  ///< d(engine FLOP estimate)/dt, per GPU; NaN when not exported
};

/// The steady-state traffic the serving ceiling takes (ceiling::ServeTraffic without the budget): requests
/// in flight and the mean prompt and output lengths.
struct ServeShape {
  std::int64_t input_tokens = 1;   ///< mean prompt length, 1-1,000,000
  std::int64_t output_tokens = 1;  ///< mean generated length, 1-1,000,000
  std::int64_t concurrency = 1;    ///< running + waiting requests, 1-1,000,000
};

/// Largest prompt or output length a ServeShape holds (ceiling/serving.hpp kMaxServeSequenceTokens).
inline constexpr std::int64_t kMaxServeSequenceTokens = 1'000'000;

/// Computes the live shape from the latest scrape and, when given, the previous one.
///
/// Rates are counter deltas over `current.time_s - previous->time_s` (> 0, else NaN). A counter that went
/// down was reset (engine restart): its delta is its current value, as Prometheus' increase() counts it. Mean
/// lengths are histogram delta-sum / delta-count over the window when requests completed in it, else the
/// lifetime sum / count. Mean context = KV used tokens / running, with used tokens = usage x capacity for
/// vLLM.
[[nodiscard]] auto compute_live_shape(const EngineCounters& current, const EngineCounters* previous)
    -> LiveShape;

/// The step shape the live traffic suggests, or nullopt when no request is running (or the count is unknown).
/// Heuristic: decode, batch = running requests rounded, context = mean context (else mean prompt + half the
/// mean generation, else 0); prefill when the window generated no token but computed prompt tokens (batch =
/// running, prompt = mean prompt length).
[[nodiscard]] auto suggest_shape(const LiveShape& live) -> std::optional<WorkloadShape>;

/// The serving traffic the live metrics describe (docs/design/ceiling-model.md 6.5), or nullopt when no
/// request is running or a mean length is unknown (no request finished yet): isl and osl are the request
/// histograms' means (rounded, at least 1), concurrency the running plus waiting requests (waiting counts 0
/// when unknown).
[[nodiscard]] auto suggest_serve(const LiveShape& live) -> std::optional<ServeShape>;

}  // namespace solscope::workload
