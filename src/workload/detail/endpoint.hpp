// What a serving engine's HTTP endpoint says about the model it serves.
//
// Sources (response shapes; docs/design/ceiling-model.md section 4):
//  - vLLM `GET /v1/models`: {"object": "list", "data": [{"id" (served name), "root" (model path or HF id),
//    "parent" (base model of a LoRA adapter, else null), "max_model_len"}]} (vLLM serving_models.py). `root`,
//    not `id`, names the model: `id` is the alias of `--served-model-name`.
//  - SGLang `GET /get_server_info` (newer builds also `/server_info`): the server arguments, among them
//    model_path, tp_size, dp_size, ep_size, pp_size, enable_dp_attention, context_length, dtype,
//    kv_cache_dtype, quantization, plus "version"
//    (docs.sglang.io, native API).
//  - TGI `GET /info`: model_id, model_sha, model_dtype, max_input_tokens (older: max_input_length),
//    max_total_tokens, max_batch_total_tokens, version (TGI's Info schema).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "net/http_client.hpp"
#include "workload/detail/engine_cmdline.hpp"

namespace solscope::workload {

/// The model an endpoint reports. Unknown numbers are 0, unknown strings empty.
struct EndpointInfo {
  std::string model;  ///< local path or HF id the engine loaded (vLLM root, SGLang model_path, TGI model_id)
  std::string served_name;           ///< name clients use (vLLM data[].id); empty for TGI
  std::int64_t max_model_len = 0;    ///< max tokens per sequence (vLLM max_model_len, SGLang context_length,
                                     ///< TGI max_total_tokens)
  int tensor_parallel = 0;           ///< SGLang tp_size; 0 where the endpoint does not say (vLLM, TGI)
  int data_parallel = 0;             ///< SGLang dp_size; 0 where unknown
  int expert_parallel = 0;           ///< SGLang ep_size; 0 where unknown
  int pipeline_parallel = 0;         ///< SGLang pp_size; 0 where unknown
  std::optional<bool> dp_attention;  ///< SGLang enable_dp_attention; nullopt where unknown
  std::string dtype;                 ///< SGLang dtype, TGI model_dtype; empty where unknown
  std::string version;               ///< engine version where reported (SGLang, TGI)
};

/// Parses a vLLM /v1/models body. The base model's entry (the first with a null or missing `parent`) is used,
/// else the first entry. Errors: DataLoss for a body that is not JSON or has no `data[].root`/`id`.
[[nodiscard]] auto parse_vllm_models(std::string_view body) -> core::Result<EndpointInfo>;

/// Parses an SGLang /get_server_info body. Errors: DataLoss when it is not a JSON object with `model_path`.
[[nodiscard]] auto parse_sglang_server_info(std::string_view body) -> core::Result<EndpointInfo>;

/// Parses a TGI /info body. Errors: DataLoss when it is not a JSON object with `model_id`.
[[nodiscard]] auto parse_tgi_info(std::string_view body) -> core::Result<EndpointInfo>;

/// The path of the model-info request of an engine: "/v1/models", "/get_server_info" or "/info".
[[nodiscard]] auto info_path(EngineKind engine) -> std::string_view;

/// Asks the endpoint at host:port what it serves (info_path, then `/server_info` for SGLang when the first
/// answers 404). Errors: Unavailable (no connection), FailedPrecondition (an HTTP status other than 200; 401
/// and 403 hint at an API key), DataLoss (a body of the wrong shape: probably another service on that port),
/// InvalidArgument for EngineKind::None.
[[nodiscard]] auto probe_endpoint(net::HttpClient& http, EngineKind engine, std::string_view host,
                                  std::uint16_t port) -> core::Result<EndpointInfo>;

/// GET /metrics. Errors as probe_endpoint (SGLang answers 404 unless started with --enable-metrics: the hint
/// says so).
[[nodiscard]] auto fetch_metrics(net::HttpClient& http, EngineKind engine, std::string_view host,
                                 std::uint16_t port) -> core::Result<std::string>;

}  // namespace solscope::workload
