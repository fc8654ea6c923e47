#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "workload/live_shape.hpp"
#include "workload/prometheus_text.hpp"
#include "workload_test_support.hpp"

namespace solscope::workload {
namespace {

using test_support::engine_fixture;

TEST(PrometheusTextTest, parses_names_labels_values_and_timestamps) {
  const PromText t = parse_prometheus_text(
      "# HELP x_total A counter\n# TYPE x_total counter\n"
      "x_total 3\n"
      "vllm:num_requests_running{model_name=\"m\",engine=\"0\"} 12.5 1735689600000\n"
      "  spaced { a = \"1\" , b=\"2\", } 1e3\r\n"
      "\n");
  EXPECT_EQ(t.bad_lines, 0u);
  ASSERT_EQ(t.samples.size(), 3u);
  EXPECT_EQ(t.samples[0].name, "x_total");
  EXPECT_EQ(t.samples[0].value, 3.0);
  EXPECT_EQ(t.samples[1].name, "vllm:num_requests_running");
  ASSERT_NE(t.samples[1].label("engine"), nullptr);
  EXPECT_EQ(*t.samples[1].label("engine"), "0");
  EXPECT_EQ(t.samples[1].value, 12.5);
  EXPECT_EQ(t.samples[2].labels.size(), 2u);
  EXPECT_EQ(t.samples[2].value, 1000.0);
  EXPECT_EQ(t.samples[2].label("c"), nullptr);
  EXPECT_EQ(t.samples[0].timestamp_ms, kNoTimestamp);
  EXPECT_EQ(t.samples[1].timestamp_ms, 1735689600000);
  EXPECT_EQ(t.samples[0].line, 3u);
  EXPECT_EQ(t.samples[1].line, 4u);
  EXPECT_EQ(t.samples[2].line, 5u);
}

TEST(PrometheusTextTest, refuses_a_timestamp_that_is_not_an_integer_and_names_the_first_bad_line) {
  const PromText t = parse_prometheus_text("a 1 -5\nb 2\nc 3 1.5\nd 4 x\n");
  ASSERT_EQ(t.samples.size(), 2u);
  EXPECT_EQ(t.samples[0].timestamp_ms, -5);
  EXPECT_EQ(t.bad_lines, 2u);
  EXPECT_EQ(t.first_bad_line, 3u);
}

TEST(PrometheusTextTest, unescapes_label_values) {
  const PromText t = parse_prometheus_text("m{v=\"a \\\"quoted\\\" name\\\\with\\nescapes\",w=\"}{,\"} 1\n");
  ASSERT_EQ(t.samples.size(), 1u);
  EXPECT_EQ(*t.samples[0].label("v"), "a \"quoted\" name\\with\nescapes");
  EXPECT_EQ(*t.samples[0].label("w"), "}{,");
}

TEST(PrometheusTextTest, reads_nan_and_infinities) {
  const PromText t = parse_prometheus_text("a NaN\nb +Inf\nc -Inf\nd 1.5e-3\n");
  ASSERT_EQ(t.samples.size(), 4u);
  EXPECT_TRUE(std::isnan(t.samples[0].value));
  EXPECT_EQ(t.samples[1].value, INFINITY);
  EXPECT_EQ(t.samples[2].value, -INFINITY);
  EXPECT_DOUBLE_EQ(t.samples[3].value, 0.0015);
}

TEST(PrometheusTextTest, counts_and_skips_bad_lines) {
  const PromText t = parse_prometheus_text(
      "good 1\n9bad 1\nunterminated{a=\"x} 1\nno_value\nnot_a_number abc\nextra 1 2 3\n{\"utf8\"} 1\nok 2\n");
  EXPECT_EQ(t.bad_lines, 6u);
  ASSERT_EQ(t.samples.size(), 2u);
  EXPECT_EQ(t.samples[1].name, "ok");
}

TEST(PrometheusTextTest, keeps_only_wanted_names) {
  const std::vector<std::string_view> wanted{"b"};
  const PromText t = parse_prometheus_text("a 1\nb 2\nbad line here\n", wanted);
  ASSERT_EQ(t.samples.size(), 1u);
  EXPECT_EQ(t.samples[0].value, 2.0);
  EXPECT_EQ(t.bad_lines, 1u);
}

TEST(PrometheusTextTest, combines_series_and_skips_other_tp_ranks) {
  const PromText t = parse_prometheus_text(
      "r{engine=\"0\"} 3\nr{engine=\"1\"} 5\nr{engine=\"2\"} NaN\n"
      "s{tp_rank=\"0\"} 4\ns{tp_rank=\"1\"} 4\n");
  EXPECT_EQ(combine_series(t.samples, "r", Combine::Sum), 8.0);
  EXPECT_EQ(combine_series(t.samples, "r", Combine::Mean), 4.0);
  EXPECT_EQ(combine_series(t.samples, "r", Combine::Max), 5.0);
  EXPECT_EQ(combine_series(t.samples, "s", Combine::Sum), 4.0);
  EXPECT_TRUE(std::isnan(combine_series(t.samples, "missing", Combine::Sum)));
}

auto counters(EngineKind engine, const std::string& file, double time_s) -> EngineCounters {
  const PromText t = parse_prometheus_text(engine_fixture(file), metric_names(engine));
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
