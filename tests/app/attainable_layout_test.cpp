// The live ceiling takes the engine's parallel layout (workload/engine_layout.hpp): EP and attention DP of a
// discovered MoE deployment reach the ceiling model, and a layout the model cannot take falls back to TP with
// a note. Real configs from tests/data/hf_configs; the traffic is SYNTHETIC.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "attainable/attainable_sol.hpp"
#include "ceiling/default_gpu_specs.hpp"
#include "ceiling/model_arch.hpp"

namespace solscope::app {
namespace {

namespace fs = std::filesystem;

struct Deployment {
  ceiling::GpuDatabase db;
  const ceiling::GpuSpec* gpu = nullptr;
  ceiling::ModelArch arch;
};

auto deployment(std::string_view gpu_name, std::string_view model) -> Deployment {
  auto db = ceiling::parse_gpu_database(ceiling::default_gpu_specs_json(), "built-in");
  EXPECT_TRUE(db.has_value());
  Deployment s{.db = std::move(*db)};
  const fs::path config = fs::path(SOLSCOPE_TEST_DATA_DIR) / "hf_configs" / model / "config.json";
  std::ifstream in(config, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  auto arch = ceiling::parse_model_config(text.str(), config.string());
  EXPECT_TRUE(arch.has_value()) << arch.error().describe();
  s.arch = *arch;
  auto gpu = ceiling::find_gpu(s.db, gpu_name);
  EXPECT_TRUE(gpu.has_value());
  s.gpu = *gpu;
  return s;
}

auto serving_workload(int tp, int ep, int attention_dp, int fallback_tp) -> workload::Workload {
  workload::Workload w;
  w.source = workload::WorkloadSource::Discovered;
  w.gpus = {0, 1, 2, 3, 4, 5, 6, 7};
  w.tensor_parallel = tp;
  w.expert_parallel = ep;
  w.attention_dp = attention_dp;
  w.fallback_tensor_parallel = fallback_tp;
  w.serve = workload::ServeShape{.input_tokens = 1024, .output_tokens = 256, .concurrency = 64};
  return w;
}

const ceiling::ServeTraffic kTraffic{.input_tokens = 1024, .output_tokens = 256, .concurrency = 64};

TEST(AttainableLayoutTest, discovered_ep_and_attention_dp_reach_the_serving_ceiling) {
  // DeepSeek-R1 served with 8 attention ranks and EP 8 (vLLM -dp 8 --enable-expert-parallel).
  const Deployment s = deployment("H200", "deepseek-r1");
  std::string note = "unset";
  auto live =
      evaluate_workload_serving(s.db, *s.gpu, s.arch, serving_workload(1, 8, 8, 1), std::nan(""), &note);
  ASSERT_TRUE(live.has_value()) << live.error().describe();
  EXPECT_EQ(note, "");
  EXPECT_EQ(live->prefill_step.expert_parallel, 8);
  EXPECT_EQ(live->prefill_step.attention_dp, 8);
  ceiling::Workload base{.tensor_parallel = 1, .expert_parallel = 8, .dp_attention = true};
  auto direct = ceiling::evaluate_serving(s.db, *s.gpu, s.arch, base, kTraffic);
  ASSERT_TRUE(direct.has_value());
  EXPECT_DOUBLE_EQ(live->activity_compute_sol_pct, direct->activity_compute_sol_pct);
  EXPECT_DOUBLE_EQ(live->useful_compute_sol_pct, direct->useful_compute_sol_pct);
  EXPECT_DOUBLE_EQ(live->memory_sol_pct, direct->memory_sol_pct);
  // Not the TP-only ceiling the live path used before: EP spreads the experts, so memory traffic differs.
  auto tp_only =
      ceiling::evaluate_serving(s.db, *s.gpu, s.arch, ceiling::Workload{.tensor_parallel = 1}, kTraffic);
  ASSERT_TRUE(tp_only.has_value());
  EXPECT_NE(live->memory_sol_pct, tp_only->memory_sol_pct);
}

TEST(AttainableLayoutTest, a_layout_the_model_cannot_take_is_modelled_as_tp_with_a_note) {
  // vLLM's --enable-expert-parallel on a dense model: vLLM runs it as TP; the ceiling says so.
  const Deployment s = deployment("H100", "llama-3.1-8b");
  std::string note;
  auto live =
      evaluate_workload_serving(s.db, *s.gpu, s.arch, serving_workload(2, 2, 1, 2), std::nan(""), &note);
  ASSERT_TRUE(live.has_value()) << live.error().describe();
  EXPECT_EQ(note,
            "the engine's layout (tp 2, ep 2, attention dp 1, pp 1) does not fit this model (--ep 2 needs a "
            "mixture-of-experts model): modelled as TP 2");
  EXPECT_THAT(live->notes, ::testing::Contains(note));
  EXPECT_EQ(live->prefill_step.expert_parallel, 1);
  auto direct =
      ceiling::evaluate_serving(s.db, *s.gpu, s.arch, ceiling::Workload{.tensor_parallel = 2}, kTraffic);
  ASSERT_TRUE(direct.has_value());
  EXPECT_DOUBLE_EQ(live->activity_compute_sol_pct, direct->activity_compute_sol_pct);
  EXPECT_DOUBLE_EQ(live->memory_sol_pct, direct->memory_sol_pct);
}

TEST(AttainableLayoutTest, an_approximated_engine_setting_is_said_in_the_step_ceiling_too) {
  const Deployment s = deployment("H100", "qwen3-30b-a3b");
  workload::Workload w = serving_workload(2, 8, 4, 8);
  w.serve.reset();
  w.shape = workload::WorkloadShape{.phase = workload::Phase::Decode, .batch = 32, .context = 2048};
  w.layout_note = "MoE layers tensor-parallel over 8 GPUs: modelled as EP 8";
  std::string note;
  auto c = evaluate_workload(s.db, *s.gpu, s.arch, w, std::nan(""), &note);
  ASSERT_TRUE(c.has_value()) << c.error().describe();
  EXPECT_EQ(note, w.layout_note);
  EXPECT_EQ(c->expert_parallel, 8);
  EXPECT_EQ(c->attention_dp, 4);
  EXPECT_EQ(c->tensor_parallel, 2);
}

}  // namespace
}  // namespace solscope::app
