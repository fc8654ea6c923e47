#include "workload/detail/engine_layout.hpp"

#include <gtest/gtest.h>

namespace solscope::workload {
namespace {

auto launch(EngineKind engine, int tp, int dp, int ep, bool dp_attention, int pp = 0) -> EngineLaunch {
  EngineLaunch l;
  l.engine = engine;
  l.entry_point = true;
  l.tensor_parallel = tp;
  l.data_parallel = dp;
  l.expert_parallel = ep;
  l.dp_attention = dp_attention;
  l.pipeline_parallel = pp;
  return l;
}

TEST(EngineLayoutTest, vllm_ep_with_dp_is_attention_dp_over_the_ranks) {
  // `vllm serve -tp 2 -dp 4 --enable-expert-parallel`: the parser sets EP 8 with DP attention.
  const EngineLayout l = engine_layout(launch(EngineKind::Vllm, 2, 4, 8, true), 2);
  EXPECT_EQ(l.tensor_parallel, 2);
  EXPECT_EQ(l.expert_parallel, 8);
  EXPECT_EQ(l.attention_dp, 4);
  EXPECT_EQ(l.pipeline_parallel, 1);
  EXPECT_EQ(l.fallback_tensor_parallel, 2);
  EXPECT_EQ(l.note, "");
}

TEST(EngineLayoutTest, vllm_without_ep_is_tp_and_pp_only) {
  const EngineLayout l = engine_layout(launch(EngineKind::Vllm, 4, 2, 0, false, 2), 4);
  EXPECT_EQ(l.tensor_parallel, 4);
  EXPECT_EQ(l.expert_parallel, 1);
  EXPECT_EQ(l.attention_dp, 1);
  EXPECT_EQ(l.pipeline_parallel, 2);
  const EngineLayout ep_in_tp = engine_layout(launch(EngineKind::Vllm, 8, 0, 8, false), 8);
  EXPECT_EQ(ep_in_tp.expert_parallel, 8);
  EXPECT_EQ(ep_in_tp.attention_dp, 1);
}

TEST(EngineLayoutTest, sglang_dp_attention_splits_the_tp_group) {
  // `--tp 8 --dp 8 --enable-dp-attention --ep-size 8`: 8 attention ranks of 1 GPU, experts over all 8.
  const EngineLayout l = engine_layout(launch(EngineKind::Sglang, 8, 8, 8, true), 8);
  EXPECT_EQ(l.tensor_parallel, 1);
  EXPECT_EQ(l.attention_dp, 8);
  EXPECT_EQ(l.expert_parallel, 8);
  EXPECT_EQ(l.fallback_tensor_parallel, 8);
  EXPECT_EQ(l.note, "");
  // Without --ep-size the MoE layers are tensor-parallel over the 8 GPUs: modelled as EP 8, said so.
  const EngineLayout moe_tp = engine_layout(launch(EngineKind::Sglang, 8, 4, 0, true), 8);
  EXPECT_EQ(moe_tp.tensor_parallel, 2);
  EXPECT_EQ(moe_tp.attention_dp, 4);
  EXPECT_EQ(moe_tp.expert_parallel, 8);
  EXPECT_EQ(moe_tp.note, "MoE layers tensor-parallel over 8 GPUs: modelled as EP 8");
}

TEST(EngineLayoutTest, sglang_settings_the_model_cannot_take_are_approximated_with_a_note) {
  const EngineLayout odd = engine_layout(launch(EngineKind::Sglang, 6, 4, 0, true), 6);
  EXPECT_EQ(odd.tensor_parallel, 6);
  EXPECT_EQ(odd.attention_dp, 1);
  EXPECT_EQ(odd.expert_parallel, 1);
  EXPECT_EQ(odd.note, "SGLang --tp-size 6 is not a multiple of --dp-size 4: modelled as TP 6");
  const EngineLayout ep_inside = engine_layout(launch(EngineKind::Sglang, 8, 0, 4, false), 8);
  EXPECT_EQ(ep_inside.expert_parallel, 8);
  EXPECT_EQ(ep_inside.note, "SGLang --ep-size 4 inside --tp-size 8: modelled as EP 8");
  const EngineLayout replicas = engine_layout(launch(EngineKind::Sglang, 2, 2, 0, false), 2);
  EXPECT_EQ(replicas.tensor_parallel, 2);
  EXPECT_EQ(replicas.attention_dp, 1);
  EXPECT_EQ(replicas.expert_parallel, 1);
}

TEST(EngineLayoutTest, tgi_shards_are_tp_and_an_unknown_tp_is_one) {
  const EngineLayout tgi = engine_layout(launch(EngineKind::Tgi, 4, 0, 0, false, 3), 4);
  EXPECT_EQ(tgi.tensor_parallel, 4);
  EXPECT_EQ(tgi.pipeline_parallel, 1);
  EXPECT_EQ(engine_layout(launch(EngineKind::Vllm, 0, 0, 0, false), 0).tensor_parallel, 1);
}

}  // namespace
}  // namespace solscope::workload
