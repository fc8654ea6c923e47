#include "workload/detail/endpoint.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "net/http_client.hpp"
#include "workload_test_support.hpp"

namespace solscope::workload {
namespace {

using test_support::engine_fixture;
using test_support::StubServer;

TEST(EndpointTest, vllm_models_uses_root_of_the_base_model) {
  const auto info = parse_vllm_models(engine_fixture("vllm_models.json"));
  ASSERT_TRUE(info.has_value()) << info.error().describe();
  EXPECT_EQ(info->model, "meta-llama/Llama-3.1-8B-Instruct");  // not the alias "llama", not the LoRA adapter
  EXPECT_EQ(info->served_name, "llama");
  EXPECT_EQ(info->max_model_len, 8192);
  EXPECT_EQ(info->tensor_parallel, 0);
}

TEST(EndpointTest, vllm_models_rejects_other_shapes) {
  EXPECT_EQ(parse_vllm_models("<html>").error().code, core::ErrorCode::DataLoss);
  EXPECT_EQ(parse_vllm_models("{\"data\": []}").error().code, core::ErrorCode::DataLoss);
  EXPECT_EQ(parse_vllm_models("{\"data\": [{\"object\": \"model\"}]}").error().code,
            core::ErrorCode::DataLoss);
  EXPECT_EQ(parse_vllm_models("[1,2]").error().code, core::ErrorCode::DataLoss);
  // Without root (older builds), the id is the best name there is; a non-integer length is ignored.
  const auto only_id = parse_vllm_models("{\"data\": [{\"id\": \"org/m\", \"max_model_len\": \"big\"}]}");
  ASSERT_TRUE(only_id.has_value());
  EXPECT_EQ(only_id->model, "org/m");
  EXPECT_EQ(only_id->max_model_len, 0);
}

TEST(EndpointTest, sglang_server_info) {
  const auto info = parse_sglang_server_info(engine_fixture("sglang_server_info.json"));
  ASSERT_TRUE(info.has_value()) << info.error().describe();
  EXPECT_EQ(info->model, "/models/Qwen2.5-7B");
  EXPECT_EQ(info->tensor_parallel, 1);
  EXPECT_EQ(info->data_parallel, 1);
  EXPECT_EQ(info->max_model_len, 32768);
  EXPECT_EQ(info->dtype, "bfloat16");
  EXPECT_EQ(info->version, "0.4.6.post1");
  EXPECT_EQ(parse_sglang_server_info("{\"tp_size\": 2}").error().code, core::ErrorCode::DataLoss);
  EXPECT_EQ(info->pipeline_parallel, 1);
  EXPECT_EQ(info->expert_parallel, 0);  // the fixture's build predates ep_size
  EXPECT_FALSE(info->dp_attention.has_value());
  const auto dpa = parse_sglang_server_info(
      R"({"model_path": "deepseek-ai/DeepSeek-V3", "tp_size": 8, "dp_size": 8, "ep_size": 8,
          "enable_dp_attention": true, "pp_size": 1})");
  ASSERT_TRUE(dpa.has_value());
  EXPECT_EQ(dpa->expert_parallel, 8);
  EXPECT_EQ(dpa->data_parallel, 8);
  EXPECT_EQ(dpa->dp_attention, std::optional<bool>(true));
  const auto odd = parse_sglang_server_info(R"({"model_path": "m", "enable_dp_attention": "yes"})");
  ASSERT_TRUE(odd.has_value());
  EXPECT_FALSE(odd->dp_attention.has_value());
}

TEST(EndpointTest, tgi_info) {
  const auto info = parse_tgi_info(engine_fixture("tgi_info.json"));
  ASSERT_TRUE(info.has_value()) << info.error().describe();
  EXPECT_EQ(info->model, "mistralai/Mixtral-8x7B-v0.1");
  EXPECT_EQ(info->max_model_len, 4096);
  EXPECT_EQ(info->version, "2.4.0");
  EXPECT_EQ(parse_tgi_info("not json").error().code, core::ErrorCode::DataLoss);
}

TEST(EndpointTest, probes_each_engine_through_http) {
  StubServer stub;
  stub.set("/v1/models", 200, engine_fixture("vllm_models.json"));
  stub.set("/server_info", 200,
           engine_fixture("sglang_server_info.json"));  // newer SGLang: /get_server_info is 404
  stub.set("/info", 200, engine_fixture("tgi_info.json"));
  const auto client = net::make_loopback_http_client();
  const auto vllm = probe_endpoint(*client, EngineKind::Vllm, "127.0.0.1", stub.port());
  ASSERT_TRUE(vllm.has_value()) << vllm.error().describe();
  EXPECT_EQ(vllm->model, "meta-llama/Llama-3.1-8B-Instruct");
  const auto sglang = probe_endpoint(*client, EngineKind::Sglang, "127.0.0.1", stub.port());
  ASSERT_TRUE(sglang.has_value()) << sglang.error().describe();
  EXPECT_EQ(sglang->model, "/models/Qwen2.5-7B");
  const auto tgi = probe_endpoint(*client, EngineKind::Tgi, "127.0.0.1", stub.port());
  ASSERT_TRUE(tgi.has_value()) << tgi.error().describe();
  EXPECT_EQ(tgi->model, "mistralai/Mixtral-8x7B-v0.1");
  EXPECT_THAT(stub.requests(),
              ::testing::ElementsAre("/v1/models", "/get_server_info", "/server_info", "/info"));
}

TEST(EndpointTest, explains_http_errors) {
  StubServer stub;
  stub.set("/v1/models", 401, "{\"error\": \"Unauthorized\"}");
  stub.set("/info", 200, "<html>a web app</html>");
  const auto client = net::make_loopback_http_client();
  const auto locked = probe_endpoint(*client, EngineKind::Vllm, "127.0.0.1", stub.port());
  ASSERT_FALSE(locked.has_value());
  EXPECT_EQ(locked.error().code, core::ErrorCode::FailedPrecondition);
  EXPECT_THAT(locked.error().hint, ::testing::HasSubstr("API key"));
  EXPECT_EQ(probe_endpoint(*client, EngineKind::Tgi, "127.0.0.1", stub.port()).error().code,
            core::ErrorCode::DataLoss);
  const auto no_metrics = fetch_metrics(*client, EngineKind::Sglang, "127.0.0.1", stub.port());
  ASSERT_FALSE(no_metrics.has_value());
  EXPECT_THAT(no_metrics.error().hint, ::testing::HasSubstr("--enable-metrics"));
  EXPECT_EQ(probe_endpoint(*client, EngineKind::None, "127.0.0.1", stub.port()).error().code,
            core::ErrorCode::InvalidArgument);
}

}  // namespace
}  // namespace solscope::workload
