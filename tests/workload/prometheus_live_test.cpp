#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "net/prometheus_text.hpp"
#include "workload/detail/live_shape.hpp"
#include "workload_test_support.hpp"

namespace solscope::workload {
namespace {

using test_support::engine_fixture;

auto counters(EngineKind engine, const std::string& file, double time_s) -> EngineCounters {
  const net::PromText t = net::parse_prometheus_text(engine_fixture(file), metric_names(engine));
  EXPECT_EQ(t.bad_lines, 0u) << file;
  return read_engine_counters(engine, t.samples, time_s);
}

TEST(LiveShapeTest, vllm_rates_from_two_scrapes_are_exact) {
  const EngineCounters t0 = counters(EngineKind::Vllm, "vllm_metrics_t0.txt", 100.0);
  const EngineCounters t1 = counters(EngineKind::Vllm, "vllm_metrics_t1.txt", 105.0);
  EXPECT_EQ(t0.kv_capacity_tokens, 64000.0);  // 4000 blocks x 16 tokens
  const LiveShape live = compute_live_shape(t1, &t0);
  EXPECT_EQ(live.window_s, 5.0);
  EXPECT_EQ(live.running_requests, 16.0);
  EXPECT_EQ(live.waiting_requests, 2.0);
  EXPECT_EQ(live.prompt_tokens_per_s, 1500.0);
  EXPECT_EQ(live.computed_prompt_tokens_per_s, 1300.0);
  EXPECT_EQ(live.generation_tokens_per_s, 500.0);
  EXPECT_EQ(live.steps_per_s, 100.0);
  EXPECT_EQ(live.kv_usage_pct, 50.0);
  EXPECT_EQ(live.mean_context_tokens, 2000.0);  // 0.5 x 64000 / 16
  EXPECT_EQ(live.mean_prompt_tokens, 1000.0);   // (13000 - 9000) / (14 - 10)
  EXPECT_EQ(live.mean_generation_tokens, 500.0);
}

TEST(LiveShapeTest, first_scrape_has_no_rates_but_lifetime_means) {
  const LiveShape live =
      compute_live_shape(counters(EngineKind::Vllm, "vllm_metrics_t0.txt", 100.0), nullptr);
  EXPECT_TRUE(std::isnan(live.prompt_tokens_per_s));
  EXPECT_TRUE(std::isnan(live.window_s));
  EXPECT_EQ(live.running_requests, 12.0);
  EXPECT_EQ(live.mean_prompt_tokens, 900.0);  // 9000 / 10
  EXPECT_DOUBLE_EQ(live.mean_context_tokens, 16000.0 / 12.0);
}

TEST(LiveShapeTest, sglang_rates_ignore_duplicate_ranks) {
  const EngineCounters t0 = counters(EngineKind::Sglang, "sglang_metrics_t0.txt", 10.0);
  const EngineCounters t1 = counters(EngineKind::Sglang, "sglang_metrics_t1.txt", 14.0);
  const LiveShape live = compute_live_shape(t1, &t0);
  EXPECT_EQ(live.running_requests, 6.0);
  EXPECT_EQ(live.prompt_tokens_per_s, 500.0);
  EXPECT_EQ(live.computed_prompt_tokens_per_s, 400.0);
  EXPECT_EQ(live.generation_tokens_per_s, 500.0);
  EXPECT_DOUBLE_EQ(live.kv_usage_pct, 15.0);
  EXPECT_EQ(live.mean_context_tokens, 2000.0);
  EXPECT_TRUE(std::isnan(live.steps_per_s));
}

TEST(LiveShapeTest, tgi_rates_come_from_histogram_sums) {
  const EngineCounters t0 = counters(EngineKind::Tgi, "tgi_metrics_t0.txt", 0.0);
  const EngineCounters t1 = counters(EngineKind::Tgi, "tgi_metrics_t1.txt", 2.0);
  const LiveShape live = compute_live_shape(t1, &t0);
  EXPECT_EQ(live.running_requests, 8.0);
  EXPECT_EQ(live.prompt_tokens_per_s, 1500.0);
  EXPECT_EQ(live.generation_tokens_per_s, 300.0);
  EXPECT_EQ(live.steps_per_s, 103.0);
  EXPECT_EQ(live.mean_prompt_tokens, 500.0);
  EXPECT_EQ(live.mean_generation_tokens, 100.0);
  EXPECT_TRUE(std::isnan(live.kv_usage_pct));
  EXPECT_TRUE(std::isnan(live.mean_context_tokens));
}

TEST(LiveShapeTest, a_counter_reset_counts_from_zero) {
  EngineCounters before;
  before.time_s = 0;
  before.generation_tokens = 90000;
  EngineCounters after;
  after.time_s = 2;
  after.generation_tokens = 300;  // the engine restarted
  EXPECT_EQ(compute_live_shape(after, &before).generation_tokens_per_s, 150.0);
  after.time_s = 0;  // no time passed: no rate
  EXPECT_TRUE(std::isnan(compute_live_shape(after, &before).generation_tokens_per_s));
}

TEST(LiveShapeTest, suggests_a_decode_step_from_live_traffic) {
  LiveShape live;
  live.running_requests = 15.6;
  live.generation_tokens_per_s = 500;
  live.prompt_tokens_per_s = 1500;
  live.mean_context_tokens = 1843.4;
  const auto shape = suggest_shape(live);
  ASSERT_TRUE(shape.has_value());
  EXPECT_EQ(shape->phase, Phase::Decode);
  EXPECT_EQ(shape->batch, 16);
  EXPECT_EQ(shape->context, 1843);
  EXPECT_EQ(shape->prompt, 0);
  live.mean_context_tokens = kUnknown;  // TGI: no KV figures, so prompt + half the generation
  live.mean_prompt_tokens = 500;
  live.mean_generation_tokens = 100;
  EXPECT_EQ(suggest_shape(live)->context, 550);
}

TEST(LiveShapeTest, suggests_prefill_when_nothing_is_generated_and_nothing_when_idle) {
  LiveShape live;
  live.running_requests = 4;
  live.generation_tokens_per_s = 0;
  live.prompt_tokens_per_s = 8000;
  live.mean_prompt_tokens = 2047.6;
  const auto shape = suggest_shape(live);
  ASSERT_TRUE(shape.has_value());
  EXPECT_EQ(shape->phase, Phase::Prefill);
  EXPECT_EQ(shape->batch, 4);
  EXPECT_EQ(shape->prompt, 2048);
  live.running_requests = 0;
  EXPECT_FALSE(suggest_shape(live).has_value());
  EXPECT_FALSE(suggest_shape(LiveShape{}).has_value());
}

TEST(LiveShapeTest, phase_names_match_the_ceiling_model) {
  EXPECT_EQ(to_string(Phase::Prefill), "prefill");
  EXPECT_EQ(to_string(Phase::Decode), "decode");
  EXPECT_EQ(to_string(Phase::Train), "train");
  EXPECT_EQ(core::phase_from_string("train"), Phase::Train);
  EXPECT_FALSE(core::phase_from_string("Decode").has_value());
}

}  // namespace
}  // namespace solscope::workload
