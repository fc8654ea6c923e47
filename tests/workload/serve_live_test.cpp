// Live inputs of the serving ceiling (docs/design/ceiling-model.md 6.5): the token budget from each engine's
// command line, the request-length histograms and the engines' own FLOP estimates (SYNTHETIC /metrics of
// tests/data/engines/synthetic_*_serve_*.txt).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "net/prometheus_text.hpp"
#include "workload/detail/engine_cmdline.hpp"
#include "workload/detail/live_shape.hpp"
#include "workload_test_support.hpp"

namespace solscope::workload {
namespace {

using Args = std::vector<std::string>;
using test_support::engine_fixture;

auto counters(EngineKind engine, const std::string& file, double time_s) -> EngineCounters {
  const net::PromText t = net::parse_prometheus_text(engine_fixture(file), metric_names(engine));
  EXPECT_EQ(t.bad_lines, 0u) << file;
  return read_engine_counters(engine, t.samples, time_s);
}

TEST(ServeBudgetTest, each_engine_names_its_token_budget) {
  EXPECT_EQ(detect_engine(Args{"vllm", "serve", "m", "--max-num-batched-tokens", "16384"}).max_batched_tokens,
            16384);
  EXPECT_EQ(detect_engine(Args{"vllm", "serve", "m", "--max_num_batched_tokens=4096"}).max_batched_tokens,
            4096);
  EXPECT_EQ(detect_engine(Args{"vllm", "serve", "m"}).max_batched_tokens, 0);
  EXPECT_EQ(detect_engine(Args{"python3", "-m", "sglang.launch_server", "--model-path", "m",
                               "--chunked-prefill-size", "8192"})
                .max_batched_tokens,
            8192);
  // -1 turns SGLang's chunking off: no budget known.
  EXPECT_EQ(detect_engine(Args{"python3", "-m", "sglang.launch_server", "--model-path", "m",
                               "--chunked-prefill-size", "-1"})
                .max_batched_tokens,
            0);
  EXPECT_EQ(
      detect_engine(Args{"text-generation-launcher", "--model-id", "m", "--max-batch-prefill-tokens", "2048"})
          .max_batched_tokens,
      2048);
  EXPECT_EQ(
      detect_engine(Args{"text-generation-launcher", "--model-id", "m"}, {"MAX_BATCH_PREFILL_TOKENS=6000"})
          .max_batched_tokens,
      6000);
}

TEST(ServeLiveTest, vllm_histograms_give_the_traffic_and_the_flop_rate) {
  const EngineCounters t0 = counters(EngineKind::Vllm, "synthetic_vllm_serve_t0.txt", 100.0);
  const EngineCounters t1 = counters(EngineKind::Vllm, "synthetic_vllm_serve_t1.txt", 105.0);
  EXPECT_EQ(t1.engine_flops, 1.5e15);
  const LiveShape live = compute_live_shape(t1, &t0);
  EXPECT_EQ(live.mean_prompt_tokens, 1024.0);  // (167936 - 102400) / 64
  EXPECT_EQ(live.mean_generation_tokens, 256.0);
  EXPECT_EQ(live.engine_flops_per_s, 1e14);  // (1.5e15 - 1e15) / 5 s
  const auto serve = suggest_serve(live);
  ASSERT_TRUE(serve.has_value());
  EXPECT_EQ(serve->input_tokens, 1024);
  EXPECT_EQ(serve->output_tokens, 256);
  EXPECT_EQ(serve->concurrency, 64);  // 60 running + 4 waiting
  // One scrape: no rate, but lifetime means still give the traffic.
  const LiveShape first = compute_live_shape(t0, nullptr);
  EXPECT_TRUE(std::isnan(first.engine_flops_per_s));
  ASSERT_TRUE(suggest_serve(first).has_value());
  EXPECT_EQ(suggest_serve(first)->input_tokens, 1024);  // 102400 / 100
}

TEST(ServeLiveTest, sglang_histograms_give_the_traffic_and_the_flop_rate) {
  const EngineCounters t0 = counters(EngineKind::Sglang, "synthetic_sglang_serve_t0.txt", 10.0);
  const EngineCounters t1 = counters(EngineKind::Sglang, "synthetic_sglang_serve_t1.txt", 14.0);
  const LiveShape live = compute_live_shape(t1, &t0);
  EXPECT_EQ(live.engine_flops_per_s, 1e14);  // +4e14 over 4 s
  const auto serve = suggest_serve(live);
  ASSERT_TRUE(serve.has_value());
  EXPECT_EQ(serve->input_tokens, 2048);  // +8192 over +4 requests
  EXPECT_EQ(serve->output_tokens, 128);  // +512 over +4
  EXPECT_EQ(serve->concurrency, 32);     // 30 running + 2 queued
}

TEST(ServeLiveTest, no_traffic_without_running_requests_or_lengths) {
  LiveShape live;
  live.running_requests = 8;
  live.mean_prompt_tokens = 500.4;
  EXPECT_FALSE(suggest_serve(live).has_value()) << "no generation length yet";
  live.mean_generation_tokens = 0.2;  // rounds to 0: at least 1
  ASSERT_TRUE(suggest_serve(live).has_value());
  EXPECT_EQ(suggest_serve(live)->input_tokens, 500);
  EXPECT_EQ(suggest_serve(live)->output_tokens, 1);
  EXPECT_EQ(suggest_serve(live)->concurrency, 8) << "unknown waiting counts 0";
  live.running_requests = 0;
  EXPECT_FALSE(suggest_serve(live).has_value()) << "idle";
  live.running_requests = 3;
  live.mean_prompt_tokens = 5e9;  // absurd: clamped to the model's 1,000,000
  EXPECT_EQ(suggest_serve(live)->input_tokens, kMaxServeSequenceTokens);
}

}  // namespace
}  // namespace solscope::workload
