#include "workload/detail/endpoint.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/enum_table.hpp"
#include "wire/json_fields.hpp"

namespace solscope::workload {
namespace {

using nlohmann::json;

auto parse_object(std::string_view body, std::string_view what) -> core::Result<json> {
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return core::fail(core::ErrorCode::DataLoss, std::string(what) + " is not a JSON object",
                      "another service may be listening on that port");
  }
  return doc;
}

using wire::string_field;

/// An integer field in [1, max] (JSON integers, or floats holding an integer); 0 otherwise.
auto int_field(const json& obj, const char* key, std::int64_t max) -> std::int64_t {
  const auto it = obj.find(key);
  if (it == obj.end()) return 0;
  double value = 0;
  if (it->is_number_integer()) {
    value = static_cast<double>(it->get<std::int64_t>());
  } else if (it->is_number_float()) {
    value = it->get<double>();
  } else {
    return 0;
  }
  if (!(value >= 1 && value <= static_cast<double>(max)) || std::floor(value) != value) return 0;
  return static_cast<std::int64_t>(value);
}

/// The keys of the fields that SGLang's /get_server_info and TGI's /info answers share.
struct InfoKeys {
  std::string_view answer;  ///< what the answer is, for messages: "the TGI /info answer"
  const char* model;
  const char* max_model_len;
  const char* dtype;
};

/// An info answer parsed into `doc` (a JSON object), and the fields every such answer has. Errors: DataLoss
/// when it is not an object or names no model.
auto parse_info(std::string_view body, const InfoKeys& keys, json& doc) -> core::Result<EndpointInfo> {
  auto parsed = parse_object(body, keys.answer);
  if (!parsed) return core::propagate(parsed);
  doc = std::move(*parsed);
  EndpointInfo info;
  info.model = string_field(doc, keys.model);
  if (info.model.empty()) {
    return core::fail(core::ErrorCode::DataLoss, std::string(keys.answer) + " has no " + keys.model);
  }
  info.max_model_len = int_field(doc, keys.max_model_len, kMaxContextTokens);
  info.dtype = string_field(doc, keys.dtype);
  info.version = string_field(doc, "version");
  return info;
}

auto status_error(int status, const std::string& url, EngineKind engine) -> core::Unexpected<core::Error> {
  std::string hint;
  if (status == 401 || status == 403) {
    hint = "the engine requires an API key; declare the workload in the config file instead";
  } else if (status == 404 && engine == EngineKind::Sglang && url.ends_with("/metrics")) {
    hint = "start SGLang with --enable-metrics to expose /metrics";
  }
  return core::fail(core::ErrorCode::FailedPrecondition, url + " answered HTTP " + std::to_string(status),
                    std::move(hint));
}

auto url_of(std::string_view host, std::uint16_t port, std::string_view path) -> std::string {
  return std::string(host) + ":" + std::to_string(port) + std::string(path);
}

}  // namespace

auto parse_vllm_models(std::string_view body) -> core::Result<EndpointInfo> {
  auto doc = parse_object(body, "the vLLM /v1/models answer");
  if (!doc) return core::propagate(doc);
  const auto data = doc->find("data");
  if (data == doc->end() || !data->is_array() || data->empty()) {
    return core::fail(core::ErrorCode::DataLoss, "the vLLM /v1/models answer lists no model");
  }
  const json* chosen = &data->front();
  for (const json& entry : *data) {
    const auto parent = entry.is_object() ? entry.find("parent") : entry.end();
    if (entry.is_object() && (parent == entry.end() || parent->is_null())) {
      chosen = &entry;
      break;
    }
  }
  if (!chosen->is_object())
    return core::fail(core::ErrorCode::DataLoss, "the vLLM /v1/models entry is not an object");
  EndpointInfo info;
  info.served_name = string_field(*chosen, "id");
  info.model = string_field(*chosen, "root");
  if (info.model.empty()) info.model = info.served_name;
  if (info.model.empty())
    return core::fail(core::ErrorCode::DataLoss, "the vLLM /v1/models entry has no root or id");
  info.max_model_len = int_field(*chosen, "max_model_len", kMaxContextTokens);
  return info;
}

auto parse_sglang_server_info(std::string_view body) -> core::Result<EndpointInfo> {
  json doc;
  auto info =
      parse_info(body, {"the SGLang /get_server_info answer", "model_path", "context_length", "dtype"}, doc);
  if (!info) return info;
  info->served_name = string_field(doc, "served_model_name");
  info->tensor_parallel = static_cast<int>(int_field(doc, "tp_size", kMaxParallel));
  info->data_parallel = static_cast<int>(int_field(doc, "dp_size", kMaxParallel));
  info->expert_parallel = static_cast<int>(int_field(doc, "ep_size", kMaxParallel));
  info->pipeline_parallel = static_cast<int>(int_field(doc, "pp_size", kMaxParallel));
  if (const auto dpa = doc.find("enable_dp_attention"); dpa != doc.end() && dpa->is_boolean()) {
    info->dp_attention = dpa->get<bool>();
  }
  return info;
}

auto parse_tgi_info(std::string_view body) -> core::Result<EndpointInfo> {
  json doc;
  return parse_info(body, {"the TGI /info answer", "model_id", "max_total_tokens", "model_dtype"}, doc);
}

constexpr core::EnumNames<EngineKind, 4> kInfoPaths({"", "/v1/models", "/get_server_info", "/info"}, "");

auto info_path(EngineKind engine) -> std::string_view {
  return kInfoPaths(engine);
}

auto probe_endpoint(net::HttpClient& http, EngineKind engine, std::string_view host, std::uint16_t port)
    -> core::Result<EndpointInfo> {
  if (engine == EngineKind::None) {
    return core::fail(core::ErrorCode::InvalidArgument, "no engine to probe on " + url_of(host, port, ""));
  }
  std::string path(info_path(engine));
  auto response = http.get(host, port, path);
  if (response && response->status == 404 && engine == EngineKind::Sglang) {
    path = "/server_info";
    response = http.get(host, port, path);
  }
  if (!response) return core::propagate(response);
  if (response->status != 200) return status_error(response->status, url_of(host, port, path), engine);
  switch (engine) {
    case EngineKind::Vllm:
      return parse_vllm_models(response->body);
    case EngineKind::Sglang:
      return parse_sglang_server_info(response->body);
    case EngineKind::Tgi:
      return parse_tgi_info(response->body);
    case EngineKind::None:
      break;
  }
  return core::fail(core::ErrorCode::Internal, "unreachable engine kind");
}

auto fetch_metrics(net::HttpClient& http, EngineKind engine, std::string_view host, std::uint16_t port)
    -> core::Result<std::string> {
  auto response = http.get(host, port, "/metrics");
  if (!response) return core::propagate(response);
  if (response->status != 200) return status_error(response->status, url_of(host, port, "/metrics"), engine);
  return std::move(response->body);
}

}  // namespace solscope::workload
