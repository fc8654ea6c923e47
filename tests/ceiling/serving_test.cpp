// The serving ceiling (src/ceiling/serving.hpp): the steady-state step mix computed by hand from
// docs/design/ceiling-model.md section 6, its limiting cases, and the costed figures.
#include <gtest/gtest.h>

#include <cmath>

#include "ceiling/serving.hpp"
#include "ceiling/test_support.hpp"

namespace solscope::ceiling {
namespace {

using testing::builtin_db;
using testing::builtin_gpu;
using testing::fixture_arch;

auto plan(std::int64_t isl, std::int64_t osl, std::int64_t conc, std::int64_t budget) -> ServeMix {
  auto m = plan_serving(ServeTraffic{isl, osl, conc, budget}, budget);
  EXPECT_TRUE(m.has_value()) << (m ? "" : m.error().describe());
  return m ? *m : ServeMix{};
}

auto serve(const std::string& gpu, const std::string& model, ServeTraffic t, int tp = 1) -> ServeCeiling {
  Workload base;
  base.tensor_parallel = tp;
  auto s = evaluate_serving(builtin_db(), builtin_gpu(gpu), fixture_arch(model), base, t);
  EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().describe());
  return s ? *s : ServeCeiling{};
}

// isl 1024, osl 256, 64 in flight, budget 8192: 1 + 255 steps per request, so lambda = 64 / 256 = 0.25
// requests per step; 0.25 x 255 = 63.75 decoders and 0.25 x 1024 = 256 prefill tokens per step on average;
// a whole prompt fits the spare budget (8192 - 63.75), so one step in four carries one 1024-token prefill
// beside 63 decoders and the other three run 64 decoders.
TEST(ServePlan, HandComputedConcurrencyBoundMix) {
  const ServeMix m = plan(1024, 256, 64, 8192);
  EXPECT_FALSE(m.budget_bound);
  EXPECT_DOUBLE_EQ(m.requests_per_step, 0.25);
  EXPECT_DOUBLE_EQ(m.decode_batch, 63.75);
  EXPECT_DOUBLE_EQ(m.prefill_tokens_per_step, 256.0);
  EXPECT_DOUBLE_EQ(m.prefill_step_fraction, 0.25);
  EXPECT_DOUBLE_EQ(m.chunk_tokens, 1024.0);
  EXPECT_DOUBLE_EQ(m.prefill_steps_per_request, 1.0);
  EXPECT_DOUBLE_EQ(m.prefill_requests_per_step, 1.0);
  EXPECT_DOUBLE_EQ(m.prefill_step_decoders, 63.0);
  EXPECT_DOUBLE_EQ(m.decode_step_decoders, 64.0);
  EXPECT_DOUBLE_EQ(m.chunk_cached_tokens, 0.0);
  EXPECT_DOUBLE_EQ(m.first_token_steps, 1.0);
  EXPECT_DOUBLE_EQ(m.waiting_requests, 0.0);
  // Little's law: steps per request = C / lambda = 256 = 1 prefill step + 255 decode steps.
  EXPECT_DOUBLE_EQ(64 / m.requests_per_step, 256.0);
}

// isl 4096, osl 1024, 8 in flight, budget 2048: ~8 decoders leave 2040 tokens, so a prompt takes
// ceil(4096 / 2040) = 3 chunks of 1365.3; lambda = 8 / (3 + 1023) and f_p = 3 lambda.
TEST(ServePlan, HandComputedChunkedPrefill) {
  const ServeMix m = plan(4096, 1024, 8, 2048);
  EXPECT_FALSE(m.budget_bound);
  EXPECT_DOUBLE_EQ(m.prefill_steps_per_request, 3.0);
  EXPECT_DOUBLE_EQ(m.requests_per_step, 8.0 / 1026.0);
  EXPECT_NEAR(m.chunk_tokens, 1365.333, 1e-3);
  EXPECT_NEAR(m.chunk_cached_tokens, 1365.333, 1e-3);
  EXPECT_DOUBLE_EQ(m.prefill_step_fraction, 24.0 / 1026.0);
  EXPECT_DOUBLE_EQ(m.prefill_step_decoders, 7.0);
  EXPECT_DOUBLE_EQ(m.decode_step_decoders, 8.0);
  EXPECT_DOUBLE_EQ(m.first_token_steps, 3.0);
}

// 4096 in flight overflow the budget: lambda = 8192 / (1024 + 255) = 6.405 per step, every step full.
TEST(ServePlan, HandComputedBudgetBound) {
  const ServeMix m = plan(1024, 256, 4096, 8192);
  const double lambda = 8192.0 / 1279.0;
  EXPECT_TRUE(m.budget_bound);
  EXPECT_DOUBLE_EQ(m.requests_per_step, lambda);
  EXPECT_DOUBLE_EQ(m.prefill_step_fraction, 1.0);
  EXPECT_DOUBLE_EQ(m.decode_batch + m.prefill_tokens_per_step, 8192.0);
  EXPECT_DOUBLE_EQ(m.chunk_tokens, 1024.0);
  EXPECT_DOUBLE_EQ(m.prefill_requests_per_step, lambda);
  EXPECT_NEAR(m.first_token_steps, 4096 / lambda - 255, 1e-9);
  EXPECT_NEAR(m.waiting_requests, 4096 - lambda * 256, 1e-9);
}

TEST(ServePlan, OutputOfOneIsPrefillOnly) {
  // 4 prompts of 1024 fit the budget: every step prefills all 4 in flight.
  const ServeMix m = plan(1024, 1, 4, 8192);
  EXPECT_FALSE(m.budget_bound);
  EXPECT_DOUBLE_EQ(m.decode_batch, 0.0);
  EXPECT_DOUBLE_EQ(m.prefill_step_fraction, 1.0);
  EXPECT_DOUBLE_EQ(m.prefill_tokens_per_step, 4 * 1024.0);
  EXPECT_DOUBLE_EQ(m.prefill_step_decoders, 0.0);
}

TEST(ServePlan, BadInputNamesTheRange) {
  struct Case {
    ServeTraffic t;
    std::int64_t budget;
    const char* text;
  };
  const Case cases[] = {{{0, 256, 64, 0}, 8192, "input length (isl) 0 is out of range"},
                        {{1024, 0, 64, 0}, 8192, "output length (osl) 0 is out of range"},
                        {{1024, 256, 0, 0}, 8192, "concurrency 0 is out of range"},
                        {{1024, 256, 2'000'000, 0}, 8192, "concurrency 2000000 is out of range"},
                        {{2'000'000, 256, 64, 0}, 8192, "input length (isl) 2000000"},
                        {{1024, 256, 64, 0}, 0, "max batched tokens 0 is out of range"},
                        {{1024, 256, 64, 0}, 20'000'000, "max batched tokens 20000000"}};
  for (const Case& c : cases) {
    auto m = plan_serving(c.t, c.budget);
    ASSERT_FALSE(m.has_value()) << c.text;
    EXPECT_EQ(m.error().code, core::ErrorCode::InvalidArgument);
    EXPECT_NE(m.error().describe().find(c.text), std::string::npos) << m.error().describe();
    EXPECT_NE(m.error().describe().find(" to "), std::string::npos) << m.error().describe();
  }
  // evaluate_serving checks the same way (with the budget given explicitly).
  Workload base;
  auto s = evaluate_serving(builtin_db(), builtin_gpu("H100"), fixture_arch("llama-3.1-8b"), base,
                            ServeTraffic{1024, 256, 64, -5});
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code, core::ErrorCode::InvalidArgument);
}

TEST(ServeDefaults, BudgetFollowsVllmServe) {
  EXPECT_EQ(default_max_batched_tokens(builtin_gpu("H100")), 8192);
  EXPECT_EQ(default_max_batched_tokens(builtin_gpu("H200")), 8192);
  EXPECT_EQ(default_max_batched_tokens(builtin_gpu("A100")), 2048);  // excluded by name (vLLM PR 17885)
  EXPECT_EQ(default_max_batched_tokens(builtin_gpu("L4")), 2048);    // 24 GB
}

TEST(ServeCeilingTest, StepsAreTheMixAndFiguresFollowFromThem) {
  const ServeCeiling s = serve("H100", "llama-3.1-8b", ServeTraffic{1024, 256, 64, 0});
  EXPECT_TRUE(s.default_budget);
  EXPECT_EQ(s.traffic.max_batched_tokens, 8192);
  ASSERT_TRUE(s.has_prefill_step);
  ASSERT_TRUE(s.has_decode_step);
  EXPECT_DOUBLE_EQ(s.prefill_step.tokens.computed, 63 + 1024.0);
  EXPECT_DOUBLE_EQ(s.prefill_step.tokens.emitted, 64.0);
  EXPECT_DOUBLE_EQ(s.decode_step.tokens.computed, 64.0);
  // Decoders' contexts spread over [1024, 1279): 4 groups of 16 at 1024 + 31, 95, 159, 223 cached tokens.
  EXPECT_DOUBLE_EQ(s.decode_step.tokens.cached_after, 16 * (1056 + 1120 + 1184 + 1248.0));
  const double t = 0.25 * s.prefill_step.step_time_s + 0.75 * s.decode_step.step_time_s;
  EXPECT_DOUBLE_EQ(s.mean_step_time_s, t);
  EXPECT_DOUBLE_EQ(s.tpot_s, t);
  EXPECT_DOUBLE_EQ(s.output_tokens_per_s, 0.25 * 256 / t);
  EXPECT_DOUBLE_EQ(s.total_tokens_per_s, 0.25 * (1024 + 256) / t);
  EXPECT_DOUBLE_EQ(s.ttft_s, s.prefill_step.step_time_s);
  const double busy = 0.25 * s.prefill_step.busy_s + 0.75 * s.decode_step.busy_s;
  EXPECT_NEAR(s.activity_compute_sol_pct, busy / t * 100, 1e-9);
  const double useful = 0.25 * s.prefill_step.model_flops + 0.75 * s.decode_step.model_flops;
  EXPECT_NEAR(s.useful_compute_sol_pct, useful / (s.prefill_step.peak_flops_per_s * t) * 100, 1e-9);
  EXPECT_NEAR(s.prefill_time_share, 0.25 * (s.prefill_step.step_time_s - s.decode_step.step_time_s) / t,
              1e-12);
  EXPECT_DOUBLE_EQ(s.prefill_time_share + s.decode_time_share, 1.0);
  EXPECT_GT(s.prefill_time_share, 0.05);
  EXPECT_LT(s.activity_compute_sol_pct, 100.0);
  EXPECT_LE(s.useful_compute_sol_pct, s.activity_compute_sol_pct);
}

TEST(ServeCeilingTest, OutputOfOneHasNoDecodeWork) {
  const ServeCeiling s = serve("H100", "llama-3.1-8b", ServeTraffic{1024, 1, 16, 0});
  EXPECT_FALSE(s.has_decode_step);
  EXPECT_DOUBLE_EQ(s.prefill_time_share, 1.0);
  EXPECT_TRUE(std::isnan(s.tpot_s));
  EXPECT_DOUBLE_EQ(s.prefill_step.tokens.computed, 8192.0);  // budget-bound: 8 prompts per step
}

TEST(ServeCeilingTest, TinyPromptIsAlmostAllDecode) {
  const ServeCeiling s = serve("H100", "llama-3.1-8b", ServeTraffic{1, 256, 64, 0});
  EXPECT_LT(s.prefill_time_share, 0.01);
  EXPECT_NEAR(s.output_tokens_per_s * s.tpot_s, 64.0 * 256 / 257, 0.5);  // ~64 decoders per step
}

TEST(ServeCeilingTest, MoreConcurrencyMoreTokensUntilTheBudget) {
  double previous = 0;
  for (std::int64_t c : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
    const ServeCeiling s = serve("H100", "llama-3.1-8b", ServeTraffic{1024, 256, c, 0});
    EXPECT_GT(s.output_tokens_per_s, previous) << "concurrency " << c;
    previous = s.output_tokens_per_s;
  }
  // Past the budget the step mix no longer changes: throughput is flat.
  const ServeCeiling a = serve("H100", "llama-3.1-8b", ServeTraffic{1024, 256, 8000, 2048});
  const ServeCeiling b = serve("H100", "llama-3.1-8b", ServeTraffic{1024, 256, 16000, 2048});
  EXPECT_TRUE(a.mix.budget_bound);
  EXPECT_DOUBLE_EQ(a.output_tokens_per_s, b.output_tokens_per_s);
  EXPECT_GT(b.ttft_s, a.ttft_s);  // the extra requests only queue
}

}  // namespace
}  // namespace solscope::ceiling
