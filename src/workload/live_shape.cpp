#include "workload/live_shape.hpp"
#include "core/units.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string>

namespace solscope::workload {
namespace {

constexpr std::array<std::string_view, 15> kVllmNames = {
    "vllm:num_requests_running",
    "vllm:num_requests_waiting",
    "vllm:kv_cache_usage_perc",
    "vllm:gpu_cache_usage_perc",
    "vllm:prompt_tokens_total",
    "vllm:generation_tokens_total",
    "vllm:prefix_cache_hits_total",
    "vllm:gpu_prefix_cache_hits_total",
    "vllm:iteration_tokens_total_count",
    "vllm:request_prompt_tokens_sum",
    "vllm:request_prompt_tokens_count",
    "vllm:request_generation_tokens_sum",
    "vllm:request_generation_tokens_count",
    "vllm:cache_config_info",
    "vllm:estimated_flops_per_gpu_total",
};
constexpr std::array<std::string_view, 12> kSglangNames = {
    "sglang:num_running_reqs",
    "sglang:num_queue_reqs",
    "sglang:token_usage",
    "sglang:num_used_tokens",
    "sglang:prompt_tokens_total",
    "sglang:generation_tokens_total",
    "sglang:cached_tokens_total",
    "sglang:prompt_tokens_histogram_sum",
    "sglang:prompt_tokens_histogram_count",
    "sglang:generation_tokens_histogram_sum",
    "sglang:generation_tokens_histogram_count",
    "sglang:estimated_flops_per_gpu_total",
};
constexpr std::array<std::string_view, 7> kTgiNames = {
    "tgi_batch_current_size",           "tgi_queue_size",
    "tgi_request_input_length_sum",     "tgi_request_input_length_count",
    "tgi_request_generated_tokens_sum", "tgi_request_generated_tokens_count",
    "tgi_batch_inference_count",
};

auto sum(std::span<const net::PromSample> s, std::string_view name) -> double {
  return net::combine_series(s, name, net::Combine::Sum);
}

/// The first name's combined value, else the second's (renamed series).
auto either(std::span<const net::PromSample> s, std::string_view name, std::string_view old_name,
            net::Combine how) -> double {
  const double value = net::combine_series(s, name, how);
  return std::isnan(value) ? net::combine_series(s, old_name, how) : value;
}

auto label_number(const net::PromSample& sample, std::string_view key) -> double {
  const std::string* text = sample.label(key);
  double value = kUnknown;
  if (text == nullptr) return value;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  return ec == std::errc{} && end == text->data() + text->size() ? value : kUnknown;
}

auto read_vllm(std::span<const net::PromSample> s, EngineCounters& c) -> void {
  c.running = sum(s, "vllm:num_requests_running");
  c.waiting = sum(s, "vllm:num_requests_waiting");
  c.kv_usage_ratio = either(s, "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", net::Combine::Mean);
  c.prompt_tokens = sum(s, "vllm:prompt_tokens_total");
  c.generation_tokens = sum(s, "vllm:generation_tokens_total");
  c.cached_prompt_tokens =
      either(s, "vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total", net::Combine::Sum);
  c.steps = sum(s, "vllm:iteration_tokens_total_count");
  c.prompt_len_sum = sum(s, "vllm:request_prompt_tokens_sum");
  c.prompt_len_count = sum(s, "vllm:request_prompt_tokens_count");
  c.generation_len_sum = sum(s, "vllm:request_generation_tokens_sum");
  c.generation_len_count = sum(s, "vllm:request_generation_tokens_count");
  c.engine_flops = sum(s, "vllm:estimated_flops_per_gpu_total");
  if (const net::PromSample* info = net::find_series(s, "vllm:cache_config_info")) {
    c.kv_capacity_tokens = label_number(*info, "num_gpu_blocks") * label_number(*info, "block_size");
  }
  if (std::isfinite(c.kv_usage_ratio) && std::isfinite(c.kv_capacity_tokens)) {
    c.kv_used_tokens = c.kv_usage_ratio * c.kv_capacity_tokens;
  }
}

auto read_sglang(std::span<const net::PromSample> s, EngineCounters& c) -> void {
  c.running = sum(s, "sglang:num_running_reqs");
  c.waiting = sum(s, "sglang:num_queue_reqs");
  c.kv_usage_ratio = net::combine_series(s, "sglang:token_usage", net::Combine::Mean);
  c.kv_used_tokens = sum(s, "sglang:num_used_tokens");
  if (std::isfinite(c.kv_usage_ratio) && c.kv_usage_ratio > 0 && std::isfinite(c.kv_used_tokens)) {
    c.kv_capacity_tokens = c.kv_used_tokens / c.kv_usage_ratio;
  }
  c.prompt_tokens = sum(s, "sglang:prompt_tokens_total");
  c.generation_tokens = sum(s, "sglang:generation_tokens_total");
  c.cached_prompt_tokens = sum(s, "sglang:cached_tokens_total");
  c.prompt_len_sum = sum(s, "sglang:prompt_tokens_histogram_sum");
  c.prompt_len_count = sum(s, "sglang:prompt_tokens_histogram_count");
  c.generation_len_sum = sum(s, "sglang:generation_tokens_histogram_sum");
  c.generation_len_count = sum(s, "sglang:generation_tokens_histogram_count");
  c.engine_flops = sum(s, "sglang:estimated_flops_per_gpu_total");
}

auto read_tgi(std::span<const net::PromSample> s, EngineCounters& c) -> void {
  c.running = sum(s, "tgi_batch_current_size");
  c.waiting = sum(s, "tgi_queue_size");
  c.prompt_len_sum = sum(s, "tgi_request_input_length_sum");
  c.prompt_len_count = sum(s, "tgi_request_input_length_count");
  c.generation_len_sum = sum(s, "tgi_request_generated_tokens_sum");
  c.generation_len_count = sum(s, "tgi_request_generated_tokens_count");
  c.prompt_tokens = c.prompt_len_sum;
  c.generation_tokens = c.generation_len_sum;
  c.steps = sum(s, "tgi_batch_inference_count");
}

/// Counter increase between two scrapes (a decrease is a reset: the increase is the current value).
auto increase(double previous, double current) -> double {
  if (!std::isfinite(previous) || !std::isfinite(current)) return kUnknown;
  return current >= previous ? current - previous : current;
}

auto mean_length(double sum_now, double count_now, double sum_before, double count_before) -> double {
  const double d_count = increase(count_before, count_now);
  const double d_sum = increase(sum_before, sum_now);
  if (std::isfinite(d_count) && d_count > 0 && std::isfinite(d_sum)) return d_sum / d_count;
  if (std::isfinite(count_now) && count_now > 0 && std::isfinite(sum_now)) return sum_now / count_now;
  return kUnknown;
}

auto clamp_tokens(double value) -> std::int64_t {
  if (!std::isfinite(value) || value < 0) return 0;
  return std::min<std::int64_t>(std::llround(value), kMaxShapeTokens);
}

}  // namespace

auto metric_names(EngineKind engine) -> std::span<const std::string_view> {
  switch (engine) {
    case EngineKind::Vllm:
      return kVllmNames;
    case EngineKind::Sglang:
      return kSglangNames;
    case EngineKind::Tgi:
      return kTgiNames;
    case EngineKind::None:
      break;
  }
  return {};
}

auto read_engine_counters(EngineKind engine, std::span<const net::PromSample> samples, double time_s)
    -> EngineCounters {
  EngineCounters c;
  c.time_s = time_s;
  switch (engine) {
    case EngineKind::Vllm:
      read_vllm(samples, c);
      break;
    case EngineKind::Sglang:
      read_sglang(samples, c);
      break;
    case EngineKind::Tgi:
      read_tgi(samples, c);
      break;
    case EngineKind::None:
      break;
  }
  return c;
}

auto compute_live_shape(const EngineCounters& current, const EngineCounters* previous) -> LiveShape {
  LiveShape live;
  live.running_requests = current.running;
  live.waiting_requests = current.waiting;
  live.kv_usage_pct = current.kv_usage_ratio * core::kPercent;
  if (std::isfinite(current.kv_used_tokens) && std::isfinite(current.running) && current.running > 0) {
    live.mean_context_tokens = current.kv_used_tokens / current.running;
  }
  const EngineCounters before = previous != nullptr ? *previous : EngineCounters{};
  live.mean_prompt_tokens = mean_length(current.prompt_len_sum, current.prompt_len_count,
                                        before.prompt_len_sum, before.prompt_len_count);
  live.mean_generation_tokens = mean_length(current.generation_len_sum, current.generation_len_count,
                                            before.generation_len_sum, before.generation_len_count);
  const double dt = current.time_s - before.time_s;
  if (previous == nullptr || !(dt > 0)) return live;
  live.window_s = dt;
  live.prompt_tokens_per_s = increase(before.prompt_tokens, current.prompt_tokens) / dt;
  live.generation_tokens_per_s = increase(before.generation_tokens, current.generation_tokens) / dt;
  live.steps_per_s = increase(before.steps, current.steps) / dt;
  live.engine_flops_per_s = increase(before.engine_flops, current.engine_flops) / dt;
  const double hits = increase(before.cached_prompt_tokens, current.cached_prompt_tokens);
  live.computed_prompt_tokens_per_s =
      std::isfinite(hits) ? std::max(0.0, live.prompt_tokens_per_s - hits / dt) : live.prompt_tokens_per_s;
  return live;
}

auto suggest_shape(const LiveShape& live) -> std::optional<WorkloadShape> {
  if (!std::isfinite(live.running_requests) || live.running_requests < 0.5) return std::nullopt;
  WorkloadShape shape;
  shape.batch = std::min<std::int64_t>(std::llround(live.running_requests), kMaxShapeBatch);
  const bool only_prefill = live.generation_tokens_per_s == 0 && live.prompt_tokens_per_s > 0;
  if (only_prefill) {
    shape.phase = Phase::Prefill;
    shape.prompt = std::max<std::int64_t>(1, clamp_tokens(live.mean_prompt_tokens));
    return shape;
  }
  shape.phase = Phase::Decode;
  if (std::isfinite(live.mean_context_tokens)) {
    shape.context = clamp_tokens(live.mean_context_tokens);
  } else if (std::isfinite(live.mean_prompt_tokens)) {
    const double half_generation =
        std::isfinite(live.mean_generation_tokens) ? live.mean_generation_tokens / 2 : 0;
    shape.context = clamp_tokens(live.mean_prompt_tokens + half_generation);
  }
  return shape;
}

auto suggest_serve(const LiveShape& live) -> std::optional<ServeShape> {
  if (!std::isfinite(live.running_requests) || live.running_requests < 0.5) return std::nullopt;
  auto length = [](double mean) -> std::optional<std::int64_t> {
    if (!std::isfinite(mean) || mean < 0) return std::nullopt;
    return std::clamp<std::int64_t>(std::llround(mean), 1, kMaxServeSequenceTokens);
  };
  const auto isl = length(live.mean_prompt_tokens);
  const auto osl = length(live.mean_generation_tokens);
  if (!isl || !osl) return std::nullopt;
  const double waiting = std::isfinite(live.waiting_requests) ? std::max(0.0, live.waiting_requests) : 0.0;
  const auto concurrency =
      std::clamp<std::int64_t>(std::llround(live.running_requests + waiting), 1, kMaxShapeBatch);
  return ServeShape{*isl, *osl, concurrency};
}

}  // namespace solscope::workload
