#include "workload/discovery.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "workload_test_support.hpp"

namespace solscope::workload {
namespace {

namespace fs = std::filesystem;
using test_support::data_dir;
using test_support::engine_fixture;
using test_support::PortMappedClient;
using test_support::procfs_host;
using test_support::StubServer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

/// NVML's view of the fake host (tests/data/procfs/README.md).
auto host_gpus() -> std::vector<GpuProcesses> {
  return {{0, {1002}}, {1, {1003}}, {2, {2001}}, {3, {3001}}, {4, {3002}},
          {5, {4000}}, {6, {5001}}, {7, {6000}}, {8, {}}};
}

auto options() -> DiscoveryOptions {
  DiscoveryOptions o;
  o.procfs_root = procfs_host();
  o.user_name = test_support::fake_user_name;
  return o;
}

void serve_engines(StubServer& stub, const char* scrape) {
  const std::string t(scrape);
  stub.set("/8000/v1/models", 200, engine_fixture("vllm_models.json"));
  stub.set("/8000/metrics", 200, engine_fixture("vllm_metrics_" + t + ".txt"));
  stub.set("/30000/get_server_info", 200, engine_fixture("sglang_server_info.json"));
  stub.set("/30000/metrics", 200, engine_fixture("sglang_metrics_" + t + ".txt"));
  stub.set("/80/info", 200, engine_fixture("tgi_info.json"));
  stub.set("/80/metrics", 200, engine_fixture("tgi_metrics_" + t + ".txt"));
  stub.set("/8080/v1/models", 200, engine_fixture("vllm_models_config_file.json"));
}

auto count(const std::vector<std::string>& calls, const std::string& call) -> long {
  return std::count(calls.begin(), calls.end(), call);
}

class DiscoveryTest : public ::testing::Test {
 protected:
  StubServer stub_;
  PortMappedClient http_{stub_.port()};
};

TEST_F(DiscoveryTest, finds_vllm_with_tensor_parallel_two) {
  serve_engines(stub_, "t0");
  WorkloadDiscovery discovery(http_, options());
  const std::vector<GpuProcesses> gpus = host_gpus();
  (void)discovery.refresh(gpus, 100.0);
  serve_engines(stub_, "t1");
  const std::vector<Workload> w = discovery.refresh(gpus, 105.0);
  ASSERT_EQ(w.size(), 9u);
  for (const int i : {0, 1}) {
    EXPECT_EQ(w[i].status, "found vLLM serving meta-llama/Llama-3.1-8B-Instruct on :8000");
    EXPECT_EQ(w[i].source, WorkloadSource::Discovered);
    EXPECT_THAT(w[i].gpus, ElementsAre(0u, 1u));
    EXPECT_EQ(w[i].tensor_parallel, 2);
    EXPECT_EQ(w[i].engine_pid, 1000);
  }
  EXPECT_EQ(w[0].processes.at(0).command, "VLLM::Worker_TP0");
  EXPECT_EQ(w[0].processes.at(0).user, "alice");
  EXPECT_EQ(w[0].served_name, "llama");
  EXPECT_EQ(w[0].max_model_len, 8192);
  EXPECT_EQ(w[0].config_path, (procfs_host() / "1000" / "root" / "home/alice/.cache/huggingface/hub" /
                               "models--meta-llama--Llama-3.1-8B-Instruct/snapshots" /
                               "0e9e39f249a16976918f6564b8830bc894c89659/config.json")
                                  .string());
  EXPECT_EQ(w[0].live.prompt_tokens_per_s, 1500.0);
  EXPECT_EQ(w[0].live.generation_tokens_per_s, 500.0);
  EXPECT_EQ(w[0].live.kv_usage_pct, 50.0);
  ASSERT_TRUE(w[0].shape.has_value());
  EXPECT_EQ(w[0].shape->phase, Phase::Decode);
  EXPECT_EQ(w[0].shape->batch, 16);
  EXPECT_EQ(w[0].shape->context, 2000);
  // Static parts are cached: one model-info request, one scrape per refresh, however many GPUs.
  EXPECT_EQ(count(http_.calls, "127.0.0.1:8000/v1/models"), 1);
  EXPECT_EQ(count(http_.calls, "127.0.0.1:8000/metrics"), 2);
}

TEST_F(DiscoveryTest, finds_sglang_and_tgi_in_containers) {
  serve_engines(stub_, "t0");
  WorkloadDiscovery discovery(http_, options());
  const std::vector<GpuProcesses> gpus = host_gpus();
  (void)discovery.refresh(gpus, 100.0);
  serve_engines(stub_, "t1");
  const std::vector<Workload> w = discovery.refresh(gpus, 105.0);
  EXPECT_EQ(w[2].status, "found SGLang serving /models/Qwen2.5-7B on :30000");
  EXPECT_EQ(w[2].tensor_parallel, 1);
  EXPECT_EQ(w[2].max_model_len, 32768);
  EXPECT_EQ(w[2].config_path, (procfs_host() / "2000" / "root" / "models/Qwen2.5-7B/config.json").string());
  EXPECT_EQ(w[2].processes.at(0).pod_uid, "0f6b2c1e-4d3a-4b8e-9c7d-2a1b3c4d5e6f");
  EXPECT_EQ(w[2].live.prompt_tokens_per_s, 400.0);  // (3000 - 1000) / 5 s
  EXPECT_EQ(w[2].live.mean_context_tokens, 2000.0);
  for (const int i : {3, 4}) {
    EXPECT_EQ(w[i].status, "found TGI serving mistralai/Mixtral-8x7B-v0.1 on :80");
    EXPECT_THAT(w[i].gpus, ElementsAre(3u, 4u));
    EXPECT_EQ(w[i].tensor_parallel, 2);
    EXPECT_EQ(w[i].engine_pid, 3000);
  }
  EXPECT_EQ(w[3].config_path,
            (procfs_host() / "3000" / "root" / "data/hub/models--mistralai--Mixtral-8x7B-v0.1" /
             "snapshots/1e637f2d7cb0a9d6fb1922f305cb784995190a83/config.json")
                .string());
  EXPECT_EQ(w[3].live.prompt_tokens_per_s, 600.0);  // 3000 input tokens over 5 s
  EXPECT_EQ(w[3].max_model_len, 4096);
}

TEST_F(DiscoveryTest, explains_gpus_without_an_engine) {
  serve_engines(stub_, "t0");
  const std::vector<Workload> w = discover(host_gpus(), http_, options());
  EXPECT_EQ(w[5].source, WorkloadSource::None);
  EXPECT_EQ(
      w[5].status,
      "no serving engine: pid 4000 (bob) runs python train.py --epochs 3; declare the workload in the config "
      "file for a ceiling");
  EXPECT_EQ(
      w[7].status,
      "no serving engine: pid 6000 runs an unreadable command; declare the workload in the config file for a "
      "ceiling");
  EXPECT_EQ(w[8].status, "no processes on GPU 8");
  for (const std::string& call : http_.calls) EXPECT_THAT(call, ::testing::Not(HasSubstr(":29500")));
}

TEST_F(DiscoveryTest, finds_a_port_set_in_a_config_file_from_its_socket) {
  serve_engines(stub_, "t0");
  const std::vector<Workload> w = discover(host_gpus(), http_, options());
  EXPECT_EQ(w[6].status, "found vLLM serving Qwen/Qwen2.5-7B-Instruct on :8080");
  EXPECT_EQ(w[6].host, "::1");  // bound to the IPv6 wildcard
  EXPECT_EQ(w[6].tensor_parallel, 1);
  EXPECT_EQ(w[6].config_path, "");
  EXPECT_THAT(w[6].config_problem,
              HasSubstr("huggingface-cli download Qwen/Qwen2.5-7B-Instruct config.json"));
  EXPECT_THAT(w[6].metrics_problem, HasSubstr("HTTP 404"));
  EXPECT_FALSE(w[6].shape.has_value());
  EXPECT_EQ(count(http_.calls, "::1:8080/v1/models"), 1);
}

TEST_F(DiscoveryTest, guesses_the_default_port_only_without_visible_sockets) {
  serve_engines(stub_, "t0");
  const std::vector<GpuProcesses> config_file_vllm{{6, {5001}}};
  (void)discover(config_file_vllm, http_, options());
  EXPECT_THAT(http_.calls,
              ElementsAre("::1:8080/v1/models", "::1:8080/metrics"));  // its socket, no guess at :8000

  const fs::path root = fs::temp_directory_path() / "solscope_workload_default_port";
  fs::remove_all(root);
  fs::create_directories(root / "7001");
  static constexpr char kArgs[] = "vllm\0serve\0meta-llama/Llama-3.1-8B-Instruct";
  std::ofstream(root / "7001" / "cmdline", std::ios::binary) << std::string(kArgs, sizeof(kArgs));
  std::ofstream(root / "7001" / "status") << "Name:\tvllm\nPPid:\t1\nUid:\t1000\t1000\t1000\t1000\n";
  DiscoveryOptions o = options();
  o.procfs_root = root;
  http_.calls.clear();
  const std::vector<GpuProcesses> unseen_sockets{{0, {7001}}};
  const std::vector<Workload> w = discover(unseen_sockets, http_, o);
  EXPECT_EQ(w[0].status, "found vLLM serving meta-llama/Llama-3.1-8B-Instruct on :8000");
  EXPECT_EQ(w[0].tensor_parallel, 1);  // vLLM's default
  EXPECT_EQ(http_.calls.front(), "127.0.0.1:8000/v1/models");
  fs::remove_all(root);
}

TEST_F(DiscoveryTest, rejects_an_endpoint_that_serves_another_model) {
  serve_engines(stub_, "t0");
  // The TGI launcher runs in its own network namespace; the host's :80 answers for some other model.
  stub_.set("/80/info", 200, "{\"model_id\": \"org/other-model\", \"max_total_tokens\": 2048}");
  const std::vector<GpuProcesses> tgi{{3, {3001}}};
  const std::vector<Workload> w = discover(tgi, http_, options());
  EXPECT_FALSE(w[0].endpoint_ok);
  EXPECT_THAT(w[0].status,
              HasSubstr("TGI (pid 3000) serves mistralai/Mixtral-8x7B-v0.1 per its command line, but "
                        "its endpoint did not answer: :80 serves org/other-model, not "
                        "mistralai/Mixtral-8x7B-v0.1 named on the command line"));
  EXPECT_THAT(w[0].status, HasSubstr("another network namespace"));
  EXPECT_FALSE(w[0].config_path.empty());  // the command line's model is still resolved
}

TEST_F(DiscoveryTest, declarations_take_precedence) {
  const auto declared = parse_workload_declarations(
      "[[workload]]\ngpus = [5]\nmodel = \"meta-llama/Llama-3.1-8B-Instruct\"\nbatch = 8\ncontext = 512\n",
      "t.toml");
  ASSERT_TRUE(declared.has_value());
  DiscoveryOptions o = options();
  o.hub_dirs = {data_dir() / "procfs/rootfs/host/home/alice/.cache/huggingface/hub"};
  const std::vector<GpuProcesses> gpus{{5, {4000}}};
  const std::vector<Workload> w = discover(gpus, http_, o, *declared);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].source, WorkloadSource::Declared);
  EXPECT_EQ(w[0].status, "declared in the config file (line 1): meta-llama/Llama-3.1-8B-Instruct on GPUs 5");
  EXPECT_THAT(w[0].config_path, HasSubstr("snapshots/0e9e39f249a16976918f6564b8830bc894c89659/config.json"));
  ASSERT_TRUE(w[0].shape.has_value());
  EXPECT_EQ(w[0].shape->batch, 8);
  EXPECT_EQ(w[0].shape->context, 512);
  EXPECT_EQ(w[0].processes.at(0).user, "bob");
  EXPECT_TRUE(http_.calls.empty());
}

TEST_F(DiscoveryTest, a_failed_probe_is_retried_after_the_interval) {
  const std::vector<GpuProcesses> gpus{{0, {1002}}};
  WorkloadDiscovery discovery(http_, options());
  const std::vector<Workload> first = discovery.refresh(gpus, 0.0);
  EXPECT_THAT(
      first[0].status,
      HasSubstr("vLLM (pid 1000) serves meta-llama/Llama-3.1-8B-Instruct per its command line, but its "
                "endpoint did not answer: 127.0.0.1:8000/v1/models answered HTTP 404"));
  EXPECT_FALSE(first[0].endpoint_ok);
  EXPECT_EQ(first[0].tensor_parallel, 2);
  EXPECT_FALSE(first[0].config_path.empty());  // from the command line's model
  serve_engines(stub_, "t0");
  EXPECT_FALSE(discovery.refresh(gpus, 10.0)[0].endpoint_ok);  // within reprobe_interval_s: not asked again
  EXPECT_EQ(count(http_.calls, "127.0.0.1:8000/v1/models"), 1);
  EXPECT_TRUE(discovery.refresh(gpus, 30.0)[0].endpoint_ok);
  EXPECT_EQ(count(http_.calls, "127.0.0.1:8000/v1/models"), 2);
}

TEST_F(DiscoveryTest, never_probes_a_non_loopback_bind_address) {
  const fs::path root = fs::temp_directory_path() / "solscope_workload_nonloopback";
  fs::remove_all(root);
  fs::create_directories(root / "7000");
  static constexpr char kArgs[] = "vllm\0serve\0org/m\0--host\00010.0.0.5\0--port\0008000";
  std::ofstream(root / "7000" / "cmdline", std::ios::binary) << std::string(kArgs, sizeof(kArgs));
  std::ofstream(root / "7000" / "status") << "Name:\tvllm\nPPid:\t1\nUid:\t0\t0\t0\t0\n";
  DiscoveryOptions o = options();
  o.procfs_root = root;
  const std::vector<GpuProcesses> gpus{{0, {7000}}};
  const std::vector<Workload> w = discover(gpus, http_, o);
  EXPECT_THAT(w[0].status, HasSubstr("vLLM binds 10.0.0.5, not a loopback address: not probed"));
  EXPECT_TRUE(http_.calls.empty());
  fs::remove_all(root);
}

TEST_F(DiscoveryTest, sglang_dp_attention_from_its_server_info_sets_the_layout) {
  serve_engines(stub_, "t0");
  // The same SGLang server, now reporting DP attention over its TP group of 8 with EP 8 (SYNTHETIC answer).
  stub_.set("/30000/get_server_info", 200,
            R"({"model_path": "/models/Qwen2.5-7B", "tp_size": 8, "dp_size": 4, "ep_size": 8,
                "enable_dp_attention": true, "pp_size": 1, "context_length": 32768})");
  const std::vector<Workload> w = discover(host_gpus(), http_, options());
  EXPECT_EQ(w[2].tensor_parallel, 2);
  EXPECT_EQ(w[2].attention_dp, 4);
  EXPECT_EQ(w[2].expert_parallel, 8);
  EXPECT_EQ(w[2].fallback_tensor_parallel, 8);
  EXPECT_EQ(w[2].layout_note, "");
  EXPECT_THAT(format_workloads(w),
              HasSubstr("  engine: SGLang pid 2000, tp 2, ep 8, attention dp 4 on GPUs 2"));
}

TEST_F(DiscoveryTest, formats_the_devices_workloads_view) {
  serve_engines(stub_, "t0");
  const std::vector<GpuProcesses> gpus{{0, {1002}}, {5, {4000}}, {8, {}}};
  const std::string text = format_workloads(discover(gpus, http_, options()));
  EXPECT_THAT(text,
              HasSubstr("GPU 0: found vLLM serving meta-llama/Llama-3.1-8B-Instruct on :8000\n"
                        "  process 1002 (alice) VLLM::Worker_TP0\n"
                        "  engine: vLLM pid 1000, tp 2 on GPUs 0, max_model_len 8192, served as \"llama\"\n"
                        "  config.json: "));
  EXPECT_THAT(
      text, HasSubstr("  live: 12.0 running, 3.0 waiting; n/a prompt tok/s, n/a generated tok/s; KV 25.0 %; "
                      "mean context 1333.3 tokens\n  step shape: decode batch 12 context 1333 prompt 0\n"));
  EXPECT_THAT(text, HasSubstr("GPU 5: no serving engine: pid 4000 (bob) runs python train.py --epochs 3;"));
  EXPECT_THAT(text, HasSubstr("  process 4000 (bob) python train.py --epochs 3 container 9f2b5c1e8a7d\n"));
  EXPECT_THAT(text, HasSubstr("GPU 8: no processes on GPU 8\n"));
  EXPECT_EQ(format_workloads({}), "no GPUs\n");
}

}  // namespace
}  // namespace solscope::workload
