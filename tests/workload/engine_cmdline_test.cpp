#include "workload/detail/engine_cmdline.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace solscope::workload {
namespace {

using Args = std::vector<std::string>;

TEST(EngineCmdlineTest, vllm_serve_with_short_tp) {
  const EngineLaunch l = detect_engine(Args{"/usr/bin/python3", "/usr/local/bin/vllm", "serve",
                                            "meta-llama/Llama-3.1-8B-Instruct", "-tp", "2", "--port", "8000",
                                            "--max-model-len", "8192", "--served-model-name", "llama"});
  EXPECT_EQ(l.engine, EngineKind::Vllm);
  EXPECT_TRUE(l.entry_point);
  EXPECT_EQ(l.model, "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(l.tensor_parallel, 2);
  ASSERT_TRUE(l.port.has_value());
  EXPECT_EQ(*l.port, 8000);
  EXPECT_EQ(l.max_model_len, 8192);
  EXPECT_EQ(l.served_model_name, "llama");
  EXPECT_EQ(l.host, "");
}

TEST(EngineCmdlineTest, vllm_api_server_module_with_equals_and_underscores) {
  const EngineLaunch l =
      detect_engine(Args{"python3", "-u", "-m", "vllm.entrypoints.openai.api_server", "--model=/models/llama",
                         "--tensor_parallel_size=4", "--host", "0.0.0.0", "--port=9000", "-pp", "2",
                         "--data-parallel-size", "2"});
  EXPECT_EQ(l.engine, EngineKind::Vllm);
  EXPECT_TRUE(l.entry_point);
  EXPECT_EQ(l.model, "/models/llama");
  EXPECT_EQ(l.tensor_parallel, 4);
  EXPECT_EQ(l.pipeline_parallel, 2);
  EXPECT_EQ(l.data_parallel, 2);
  EXPECT_EQ(l.host, "0.0.0.0");
  EXPECT_EQ(l.port, std::optional<std::uint16_t>(9000));
}

TEST(EngineCmdlineTest, vllm_last_occurrence_wins_and_bad_numbers_are_ignored) {
  const EngineLaunch l =
      detect_engine(Args{"vllm", "serve", "m", "--port", "1", "--port", "70000", "-tp", "x"});
  EXPECT_FALSE(l.port.has_value());  // 70000 is out of range
  EXPECT_EQ(l.tensor_parallel, 0);
  const EngineLaunch flag_model = detect_engine(Args{"vllm", "serve", "--model", "org/m", "--port", "8001"});
  EXPECT_EQ(flag_model.model, "org/m");
  EXPECT_EQ(flag_model.port, std::optional<std::uint16_t>(8001));
}

TEST(EngineCmdlineTest, vllm_workers_are_recognised_but_not_entry_points) {
  const EngineLaunch worker = detect_engine(Args{"VLLM::Worker_TP1"});
  EXPECT_EQ(worker.engine, EngineKind::Vllm);
  EXPECT_FALSE(worker.entry_point);
  EXPECT_EQ(detect_engine(Args{"VLLM::EngineCore"}).engine, EngineKind::Vllm);
  // `vllm` without `serve` (e.g. `vllm bench`) is not a server.
  EXPECT_EQ(detect_engine(Args{"vllm", "bench", "throughput"}).engine, EngineKind::None);
}

TEST(EngineCmdlineTest, vllm_expert_parallel_flag_sizes_ep_as_tp_times_dp) {
  // vLLM docs, Expert Parallel Deployment: EP size = TP x DP; attention stays data-parallel across DP ranks.
  const EngineLaunch ep_dp = detect_engine(
      Args{"vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "1", "-dp", "8", "--enable-expert-parallel"});
  EXPECT_EQ(ep_dp.expert_parallel, 8);
  EXPECT_TRUE(ep_dp.dp_attention);
  const EngineLaunch ep_tp = detect_engine(Args{"vllm", "serve", "m", "--tensor-parallel-size", "4", "-ep"});
  EXPECT_EQ(ep_tp.expert_parallel, 4);
  EXPECT_FALSE(ep_tp.dp_attention);
  const EngineLaunch off = detect_engine(Args{"vllm", "serve", "m", "-tp", "4", "-dp", "2",
                                              "--enable-expert-parallel", "--no-enable-expert-parallel"});
  EXPECT_EQ(off.expert_parallel, 0);
  EXPECT_FALSE(off.dp_attention);
  EXPECT_EQ(
      detect_engine(Args{"vllm", "serve", "m", "-tp", "2", "--enable_expert_parallel=false"}).expert_parallel,
      0);
}

TEST(EngineCmdlineTest, sglang_dp_attention_and_ep_size) {
  const EngineLaunch l = detect_engine(Args{"python3", "-m", "sglang.launch_server", "--model-path",
                                            "deepseek-ai/DeepSeek-V3", "--tp", "8", "--dp", "8",
                                            "--enable-dp-attention", "--ep-size", "8", "--pp-size", "2"});
  EXPECT_EQ(l.tensor_parallel, 8);
  EXPECT_EQ(l.data_parallel, 8);
  EXPECT_EQ(l.expert_parallel, 8);
  EXPECT_TRUE(l.dp_attention);
  EXPECT_EQ(l.pipeline_parallel, 2);
  const EngineLaunch aliases =
      detect_engine(Args{"sglang", "serve", "--model-path", "m", "--tensor-parallel-size", "4",
                         "--data-parallel-size", "2", "--expert-parallel-size", "4"});
  EXPECT_EQ(aliases.tensor_parallel, 4);
  EXPECT_EQ(aliases.data_parallel, 2);
  EXPECT_EQ(aliases.expert_parallel, 4);
  EXPECT_FALSE(aliases.dp_attention);
}

TEST(EngineCmdlineTest, sglang_launch_server) {
  const EngineLaunch l =
      detect_engine(Args{"python3", "-m", "sglang.launch_server", "--model-path", "/models/Qwen2.5-7B",
                         "--tp", "2", "--port", "30000", "--host", "127.0.0.1", "--context-length", "32768"});
  EXPECT_EQ(l.engine, EngineKind::Sglang);
  EXPECT_TRUE(l.entry_point);
  EXPECT_EQ(l.model, "/models/Qwen2.5-7B");
  EXPECT_EQ(l.tensor_parallel, 2);
  EXPECT_EQ(l.port, std::optional<std::uint16_t>(30000));
  EXPECT_EQ(l.host, "127.0.0.1");
  EXPECT_EQ(l.max_model_len, 32768);
  EXPECT_EQ(detect_engine(Args{"sglang", "serve", "--model-path", "m", "--tp-size", "8"}).tensor_parallel, 8);
  EXPECT_EQ(detect_engine(Args{"sglang::scheduler_TP0"}).engine, EngineKind::Sglang);
}

TEST(EngineCmdlineTest, tgi_launcher_flags_beat_environment) {
  const Args args{"/usr/local/bin/text-generation-launcher", "--model-id", "org/flag-model", "--num-shard",
                  "2"};
  const std::vector<std::string> env{"MODEL_ID=org/env-model", "NUM_SHARD=4", "PORT=80", "HOSTNAME=pod-1"};
  const EngineLaunch l = detect_engine(args, env);
  EXPECT_EQ(l.engine, EngineKind::Tgi);
  EXPECT_TRUE(l.entry_point);
  EXPECT_EQ(l.model, "org/flag-model");
  EXPECT_EQ(l.tensor_parallel, 2);
  EXPECT_EQ(l.port, std::optional<std::uint16_t>(80));
  EXPECT_EQ(l.host, "");  // HOSTNAME is the container's name in docker, not a bind address: ignored
}

TEST(EngineCmdlineTest, tgi_launcher_defaults_and_shards) {
  const EngineLaunch bare = detect_engine(Args{"text-generation-launcher"});
  EXPECT_EQ(bare.model, "bigscience/bloom-560m");
  EXPECT_FALSE(bare.port.has_value());
  const EngineLaunch shard =
      detect_engine(Args{"/opt/conda/bin/python3.11", "/opt/conda/bin/text-generation-server", "serve",
                         "mistralai/Mixtral-8x7B-v0.1", "--sharded"});
  EXPECT_EQ(shard.engine, EngineKind::Tgi);
  EXPECT_FALSE(shard.entry_point);
  EXPECT_EQ(shard.model, "mistralai/Mixtral-8x7B-v0.1");
}

TEST(EngineCmdlineTest, other_programs_are_not_engines) {
  EXPECT_EQ(detect_engine(Args{"python", "train.py", "--epochs", "3"}).engine, EngineKind::None);
  EXPECT_EQ(detect_engine(Args{"python", "-c", "import vllm"}).engine, EngineKind::None);
  EXPECT_EQ(detect_engine(Args{"python", "-m", "torch.distributed.run", "train.py"}).engine,
            EngineKind::None);
  EXPECT_EQ(detect_engine(Args{}).engine, EngineKind::None);
  EXPECT_EQ(detect_engine(Args{"python3"}).engine, EngineKind::None);
}

TEST(EngineCmdlineTest, names_and_default_ports) {
  EXPECT_EQ(to_string(EngineKind::Vllm), "vLLM");
  EXPECT_EQ(to_string(EngineKind::Sglang), "SGLang");
  EXPECT_EQ(to_string(EngineKind::Tgi), "TGI");
  EXPECT_EQ(engine_from_string("VLLM"), EngineKind::Vllm);
  EXPECT_EQ(engine_from_string("tgi"), EngineKind::Tgi);
  EXPECT_FALSE(engine_from_string("ollama").has_value());
  EXPECT_EQ(default_port(EngineKind::Vllm), 8000);
  EXPECT_EQ(default_port(EngineKind::Sglang), 30000);
  EXPECT_EQ(default_port(EngineKind::Tgi), 3000);
  EXPECT_EQ(default_port(EngineKind::None), 0);
}

}  // namespace
}  // namespace solscope::workload
