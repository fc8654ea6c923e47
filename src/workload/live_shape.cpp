#include "workload/detail/live_shape.hpp"
#include "core/enum_table.hpp"
#include "core/units.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string>

namespace solscope::workload {
namespace {

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

/// A series read as the sum over its label sets into one EngineCounters figure.
struct SummedSeries {
  std::string_view name;
  double EngineCounters::*figure;
};

/// What an engine's counters are read from: its summed series, its other series (renamed ones, averages,
/// labels), every name of both (for net::parse_prometheus_text), and the reader of the other series.
struct EngineSeries {
  std::span<const SummedSeries> sums;
  std::span<const std::string_view> names;
  void (*read_others)(std::span<const net::PromSample>, EngineCounters&) = nullptr;
};

/// The names of the summed series, then the others.
template <std::size_t kSums, std::size_t kOthers>
constexpr auto names_of(const std::array<SummedSeries, kSums>& sums,
                        const std::array<std::string_view, kOthers>& others)
    -> std::array<std::string_view, kSums + kOthers> {
  std::array<std::string_view, kSums + kOthers> names{};
  for (std::size_t i = 0; i < kSums; ++i) names[i] = sums[i].name;
  for (std::size_t i = 0; i < kOthers; ++i) names[kSums + i] = others[i];
  return names;
}

constexpr std::array<SummedSeries, 10> kVllmSums = {{
    {"vllm:num_requests_running", &EngineCounters::running},
    {"vllm:num_requests_waiting", &EngineCounters::waiting},
    {"vllm:prompt_tokens_total", &EngineCounters::prompt_tokens},
    {"vllm:generation_tokens_total", &EngineCounters::generation_tokens},
    {"vllm:iteration_tokens_total_count", &EngineCounters::steps},
    {"vllm:request_prompt_tokens_sum", &EngineCounters::prompt_len_sum},
    {"vllm:request_prompt_tokens_count", &EngineCounters::prompt_len_count},
    {"vllm:request_generation_tokens_sum", &EngineCounters::generation_len_sum},
    {"vllm:request_generation_tokens_count", &EngineCounters::generation_len_count},
    {"vllm:estimated_flops_per_gpu_total", &EngineCounters::engine_flops},
}};
constexpr std::string_view kVllmKvUsage = "vllm:kv_cache_usage_perc";
constexpr std::string_view kVllmKvUsageOld = "vllm:gpu_cache_usage_perc";
constexpr std::string_view kVllmPrefixHits = "vllm:prefix_cache_hits_total";
constexpr std::string_view kVllmPrefixHitsOld = "vllm:gpu_prefix_cache_hits_total";
constexpr std::string_view kVllmCacheConfig = "vllm:cache_config_info";
constexpr auto kVllmNames = names_of(kVllmSums, std::array{kVllmKvUsage, kVllmKvUsageOld, kVllmPrefixHits,
                                                           kVllmPrefixHitsOld, kVllmCacheConfig});

void read_vllm_others(std::span<const net::PromSample> s, EngineCounters& c) {
  c.kv_usage_ratio = either(s, kVllmKvUsage, kVllmKvUsageOld, net::Combine::Mean);
  c.cached_prompt_tokens = either(s, kVllmPrefixHits, kVllmPrefixHitsOld, net::Combine::Sum);
  if (const net::PromSample* info = net::find_series(s, kVllmCacheConfig)) {
    c.kv_capacity_tokens = label_number(*info, "num_gpu_blocks") * label_number(*info, "block_size");
  }
  if (std::isfinite(c.kv_usage_ratio) && std::isfinite(c.kv_capacity_tokens)) {
    c.kv_used_tokens = c.kv_usage_ratio * c.kv_capacity_tokens;
  }
}

constexpr std::array<SummedSeries, 11> kSglangSums = {{
    {"sglang:num_running_reqs", &EngineCounters::running},
    {"sglang:num_queue_reqs", &EngineCounters::waiting},
    {"sglang:num_used_tokens", &EngineCounters::kv_used_tokens},
    {"sglang:prompt_tokens_total", &EngineCounters::prompt_tokens},
    {"sglang:generation_tokens_total", &EngineCounters::generation_tokens},
    {"sglang:cached_tokens_total", &EngineCounters::cached_prompt_tokens},
    {"sglang:prompt_tokens_histogram_sum", &EngineCounters::prompt_len_sum},
    {"sglang:prompt_tokens_histogram_count", &EngineCounters::prompt_len_count},
    {"sglang:generation_tokens_histogram_sum", &EngineCounters::generation_len_sum},
    {"sglang:generation_tokens_histogram_count", &EngineCounters::generation_len_count},
    {"sglang:estimated_flops_per_gpu_total", &EngineCounters::engine_flops},
}};
constexpr std::string_view kSglangTokenUsage = "sglang:token_usage";
constexpr auto kSglangNames = names_of(kSglangSums, std::array{kSglangTokenUsage});

void read_sglang_others(std::span<const net::PromSample> s, EngineCounters& c) {
  c.kv_usage_ratio = net::combine_series(s, kSglangTokenUsage, net::Combine::Mean);
  if (std::isfinite(c.kv_usage_ratio) && c.kv_usage_ratio > 0 && std::isfinite(c.kv_used_tokens)) {
    c.kv_capacity_tokens = c.kv_used_tokens / c.kv_usage_ratio;
  }
}

constexpr std::array<SummedSeries, 7> kTgiSums = {{
    {"tgi_batch_current_size", &EngineCounters::running},
    {"tgi_queue_size", &EngineCounters::waiting},
    {"tgi_request_input_length_sum", &EngineCounters::prompt_len_sum},
    {"tgi_request_input_length_count", &EngineCounters::prompt_len_count},
    {"tgi_request_generated_tokens_sum", &EngineCounters::generation_len_sum},
    {"tgi_request_generated_tokens_count", &EngineCounters::generation_len_count},
    {"tgi_batch_inference_count", &EngineCounters::steps},
}};
constexpr auto kTgiNames = names_of(kTgiSums, std::array<std::string_view, 0>{});

/// TGI has no token counters: its token figures are its length histograms' sums.
void read_tgi_others(std::span<const net::PromSample> /*s*/, EngineCounters& c) {
  c.prompt_tokens = c.prompt_len_sum;
  c.generation_tokens = c.generation_len_sum;
}

constexpr core::EnumTable<EngineKind, EngineSeries, 4> kEngineSeries(
    {EngineSeries{}, EngineSeries{kVllmSums, kVllmNames, read_vllm_others},
     EngineSeries{kSglangSums, kSglangNames, read_sglang_others},
     EngineSeries{kTgiSums, kTgiNames, read_tgi_others}},
    EngineSeries{});

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
  return kEngineSeries(engine).names;
}

auto read_engine_counters(EngineKind engine, std::span<const net::PromSample> samples, double time_s)
    -> EngineCounters {
  EngineCounters c;
  c.time_s = time_s;
  const EngineSeries series = kEngineSeries(engine);
  for (const SummedSeries& summed : series.sums) c.*summed.figure = sum(samples, summed.name);
  if (series.read_others != nullptr) series.read_others(samples, c);
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
