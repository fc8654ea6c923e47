// quantization_config -> Quantization (docs/design/ceiling-model.md 2.5 item 1 and 3.1).
#include <algorithm>
#include <cctype>
#include <utility>

#include "ceiling/detail/model_quant.hpp"
#include "core/text.hpp"

namespace solscope::ceiling::detail {
namespace {

using core::Result;

// Formats of docs/design/ceiling-model.md 3.6.
constexpr double kMxfp4Group = 32;      // OCP MX v1.0: one E8M0 (8-bit) scale per 32 FP4 (E2M1) values
constexpr double kNvfp4Group = 16;      // NVIDIA NVFP4: one FP8 E4M3 scale per 16 FP4 values
constexpr double kScaleBits = 16.0;     // one FP16/BF16 scale per group for AWQ/GPTQ/compressed-tensors [S]
constexpr double kFp8ScaleBits = 32.0;  // one FP32 scale per weight_block_size block (DeepSeek-V3) [S]

auto contains(const std::string& text, std::string_view part) -> bool {
  return text.find(part) != std::string::npos;
}

/// Applies a module name pattern of `modules_to_not_convert` / `ignore` ("model.layers.*.self_attn",
/// "lm_head", "model.embed_tokens", "model.layers.*.mlp.router") to the module groups. Names outside the
/// language model (a vision tower's "model.visual.blocks.0.mlp.linear_fc1", a multimodal projector,
/// multi-token-prediction layers "re:^mtp.*") say nothing about its modules and are skipped.
void keep_unconverted(Quantization& q, const std::string& raw) {
  const std::string name = core::to_lower_ascii(raw);
  for (std::string_view outside : {"visual", "vision", "multi_modal", "mm_projector", "mtp"}) {
    if (contains(name, outside)) return;
  }
  auto keep = [&q](Module m) { q.converted[index_of(m)] = false; };
  if (contains(name, "lm_head")) return keep(Module::LmHead);
  if (contains(name, "embed")) return keep(Module::Embedding);
  if (contains(name, "router") || name == "gate" ||
      (contains(name, "mlp.gate") && !contains(name, "gate_"))) {
    return keep(Module::Router);
  }
  if (contains(name, "shared_expert")) return keep(Module::SharedExperts);
  if (contains(name, "experts")) return keep(Module::Experts);
  if (contains(name, "linear_attn")) return keep(Module::LinearAttention);
  if (contains(name, "attn") || contains(name, "attention")) return keep(Module::Attention);
  if (contains(name, "mlp")) {
    keep(Module::DenseMlp);
    keep(Module::Experts);
    keep(Module::SharedExperts);
  }
}

/// Integer weight-only formats: `b`-bit values, one 16-bit scale per group and, when asymmetric, one `b`-bit
/// zero point per group (AWQ `zero_point`, GPTQ `sym: false`, compressed-tensors `symmetric: false`; GPTQ
/// checkpoints store qzeros even when symmetric). group_size -1 means one scale per output channel.
auto read_grouped_bits(const FieldReader& f, double default_bits, bool default_zero, Quantization& q)
    -> Result<double> {
  auto bits = f.ranged_integer({"bits", "w_bit", "num_bits"}, 1, 16);
  auto group = f.integer({"group_size", "q_group_size"});
  auto zero = f.boolean({"zero_point"});
  auto sym = f.boolean({"symmetric"});
  if (!bits) return core::propagate(bits);
  if (!group) return core::propagate(group);
  if (!zero) return core::propagate(zero);
  if (!sym) return core::propagate(sym);
  const double b = bits->has_value() ? static_cast<double>(**bits) : default_bits;
  const std::int64_t g = group->value_or(128);
  q.value_bits = b;
  q.group_size = g > 0 ? g : 0;
  q.zero_points = zero->value_or(sym->has_value() ? !**sym : default_zero);
  const double per_group = kScaleBits + (q.zero_points ? b : 0.0);
  q.format =
      "int" + std::to_string(static_cast<int>(b)) + (g > 0 ? " g" + std::to_string(g) : " per-channel");
  return g > 0 ? b + per_group / static_cast<double>(g) : b;
}

void set_nvfp4(Quantization& q) {
  q.format = "nvfp4";
  q.value_bits = 4;
  q.group_size = static_cast<std::int64_t>(kNvfp4Group);
  q.bits_per_weight = 4.0 + 8.0 / kNvfp4Group;  // + one FP32 scale per tensor, negligible
  q.math = Dtype::Fp4;                          // W4A4: FP4 activations too
  q.tensor_format = Dtype::Fp4;
}

void set_fp8(Quantization& q, std::int64_t block_rows, std::int64_t block_cols) {
  q.value_bits = 8;
  q.math = Dtype::Fp8;
  q.tensor_format = Dtype::Fp8;
  if (block_rows > 0 && block_cols > 0) {
    q.format = "fp8 block " + std::to_string(block_rows) + "x" + std::to_string(block_cols);
    q.bits_per_weight = 8.0 + kFp8ScaleBits / static_cast<double>(block_rows * block_cols);
  } else {
    q.format = "fp8";
    q.bits_per_weight = 8.0;  // per-tensor or per-channel scales
  }
}

/// The KV-cache dtype a quantized checkpoint was calibrated for: compressed-tensors/ModelOpt
/// `kv_cache_scheme` {num_bits 8, type float} or ModelOpt `kv_cache_quant_algo` "FP8".
/// `source` is the file `config` came from (the KV dtype's provenance).
void read_kv_scheme(const Json& config, DtypeSource source, ModelArch& arch) {
  auto mark_fp8 = [&](std::string origin) {
    arch.kv_cache_dtype = Dtype::Fp8;
    arch.kv_cache_source = source;
    arch.kv_cache_origin = std::move(origin);
  };
  if (const auto s = config.find("kv_cache_scheme"); s != config.end() && s->is_object()) {
    const auto bits = s->find("num_bits");
    const auto type = s->find("type");
    if (bits != s->end() && bits->is_number_integer() && bits->get<int>() == 8 && type != s->end() &&
        type->is_string() && type->get<std::string>() == "float") {
      mark_fp8("kv_cache_scheme 8-bit float");
    }
  }
  if (const auto a = config.find("kv_cache_quant_algo"); a != config.end() && a->is_string()) {
    const std::string algo = a->get<std::string>();
    if (core::to_lower_ascii(algo) == "fp8") mark_fp8("kv_cache_quant_algo " + algo);
  }
}

/// compressed-tensors: the first entry of `config_groups` decides (W8A8 FP8/INT8 or weight-only).
auto read_compressed_tensors(const Json& config, const std::string& context, Quantization& q)
    -> Result<void> {
  const auto groups = config.find("config_groups");
  if (groups == config.end() || !groups->is_object() || groups->empty()) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      context + ": compressed-tensors without 'config_groups'",
                      "check the quantization_config");
  }
  const Json& group = groups->begin().value();
  const auto weights = group.find("weights");
  if (weights == group.end() || !weights->is_object()) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      context + ": compressed-tensors group without 'weights'",
                      "check the quantization_config");
  }
  const FieldReader w(*weights, context + " weights");
  auto type = w.string({"type"});
  if (!type) return core::propagate(type);
  auto bits = read_grouped_bits(w, 8, false, q);
  if (!bits) return core::propagate(bits);
  const auto acts = group.find("input_activations");
  const bool has_acts = acts != group.end() && acts->is_object();
  const bool is_float = type->value_or("int") == "float";
  if (is_float && q.value_bits == 4) {
    set_nvfp4(q);                         // nvfp4-pack-quantized: FP4 values, FP8 scales per 16
    if (!has_acts) q.math = Dtype::Bf16;  // W4A16 NVFP4: weight-only
  } else if (is_float && q.value_bits == 8) {
    set_fp8(q, 0, 0);
    if (!has_acts) q.math = Dtype::Bf16;
  } else {
    const bool w8a8 = has_acts && q.value_bits == 8;
    q.bits_per_weight = *bits;
    q.math = w8a8 ? Dtype::Int8 : Dtype::Bf16;
    q.tensor_format = q.math;
  }
  if (const auto ignore = config.find("ignore"); ignore != config.end() && ignore->is_array()) {
    for (const Json& name : *ignore) {
      if (name.is_string()) keep_unconverted(q, name.get<std::string>());
    }
  }
  return core::ok();
}

/// ModelOpt's `quant_algo` (in config.json's quantization_config or hf_quant_config.json's `quantization`):
/// NVFP4 (W4A4), FP8 (W8A8), W4A8_AWQ / W4A16_AWQ (INT4 weights, group_size), MIXED_PRECISION (per-layer
/// entries; modelled by the format of the experts or, failing that, the first entry) [G].
auto read_modelopt(const Json& config, const std::string& context, Quantization& q) -> Result<void> {
  const FieldReader f(config, context);
  auto algo = f.string({"quant_algo"});
  if (!algo) return core::propagate(algo);
  std::string name = core::to_lower_ascii(algo->value_or(""));
  if (name == "mixed_precision") {
    if (const auto layers = config.find("quantized_layers"); layers != config.end() && layers->is_object()) {
      for (auto it = layers->begin(); it != layers->end(); ++it) {
        if (!it->is_object() || !it->contains("quant_algo") || !(*it)["quant_algo"].is_string()) continue;
        const bool experts = it.key().find("experts") != std::string::npos;
        if (name == "mixed_precision" || experts)
          name = core::to_lower_ascii((*it)["quant_algo"].get<std::string>());
        if (experts) break;
      }
    }
  }
  q.algo = algo->value_or("");
  if (name == "nvfp4") {
    set_nvfp4(q);
  } else if (name == "fp8" || name == "fp8_pb_wo" || name == "fp8_block") {
    set_fp8(q, 0, 0);
  } else if (name.find("awq") != std::string::npos || name.find("w4a") != std::string::npos) {
    auto bits = read_grouped_bits(f, 4, false, q);
    if (!bits) return core::propagate(bits);
    q.bits_per_weight = *bits;
    q.math = name.find("w4a8") != std::string::npos ? Dtype::Fp8 : Dtype::Bf16;
    q.tensor_format = q.math;
  } else {
    return core::fail(core::ErrorCode::InvalidArgument,
                      context + ": ModelOpt quant_algo '" + algo->value_or("") + "' is not modelled",
                      "supported: NVFP4, FP8, W4A8_AWQ, W4A16_AWQ, MIXED_PRECISION");
  }
  q.method = "modelopt";
  for (const char* key : {"ignore", "exclude_modules"}) {
    if (const auto list = config.find(key); list != config.end() && list->is_array()) {
      for (const Json& entry : *list) {
        if (entry.is_string()) keep_unconverted(q, entry.get<std::string>());
      }
    }
  }
  return core::ok();
}

/// Sets bits and math for one method; returns false for a method the model does not know.
auto read_method(const FieldReader& f, const Json& config, const std::string& context, Quantization& q)
    -> Result<bool> {
  const std::string method = core::to_lower_ascii(q.method);
  if (method == "fp8" || method == "fbgemm_fp8") {
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    if (const Json* block = f.find({"weight_block_size"});
        block != nullptr && block->is_array() && block->size() == 2 && (*block)[0].is_number_integer() &&
        (*block)[1].is_number_integer()) {
      rows = (*block)[0].get<std::int64_t>();
      cols = (*block)[1].get<std::int64_t>();
    }
    set_fp8(q, rows, cols);
  } else if (method == "mxfp4") {
    q.format = "mxfp4";
    q.value_bits = 4;
    q.group_size = static_cast<std::int64_t>(kMxfp4Group);
    q.bits_per_weight = 4.0 + 8.0 / kMxfp4Group;
    // MXFP4 weights x MXFP8 activations on Blackwell's FP4-capable tensor cores run at the FP8 rate; without
    // FP4 support (Hopper, Ampere) the kernels dequantise to BF16 (3.6, [G]).
    q.math = Dtype::Fp8;
    q.tensor_format = Dtype::Fp4;
  } else if (method == "modelopt" || method == "modelopt_fp4") {
    if (auto r = read_modelopt(config, context, q); !r) return core::propagate(r);
  } else if (contains(method, "awq") || contains(method, "gptq") || method == "marlin") {
    auto bits = read_grouped_bits(f, 4, true, q);
    if (!bits) return core::propagate(bits);
    q.bits_per_weight = *bits;
    q.math = Dtype::Bf16;
  } else if (method == "compressed-tensors" || method == "compressed_tensors") {
    if (auto r = read_compressed_tensors(config, context, q); !r) return core::propagate(r);
  } else if (method == "bitsandbytes") {
    auto four = f.boolean({"load_in_4bit"});
    if (!four) return core::propagate(four);
    q.bits_per_weight = four->value_or(false) ? 4.5 : 8.0;  // NF4 + one FP32 absmax per 64 weights [G]
    q.math = Dtype::Bf16;
  } else {
    return false;
  }
  return true;
}

}  // namespace

auto read_quantization(const Json* config, const std::string& context, ModelArch& arch) -> Result<void> {
  arch.quant = Quantization{};
  if (config == nullptr) return core::ok();
  const std::string where = context + " quantization_config";
  if (!config->is_object()) {
    return core::fail(core::ErrorCode::InvalidArgument, where + " must be an object",
                      "check the config file");
  }
  const FieldReader f(*config, where);
  auto method = f.string({"quant_method"});
  if (!method) return core::propagate(method);
  Quantization q;
  q.method = method->value_or("unknown");
  q.converted = linear_layer_modules();
  auto known = read_method(f, *config, where, q);
  if (!known) return core::propagate(known);
  if (!*known) {
    arch.notes.push_back("quantization method '" + q.method +
                         "' is not modelled: weights counted at the checkpoint dtype");
    return core::ok();
  }
  if (const Json* keep = f.find({"modules_to_not_convert"}); keep != nullptr && keep->is_array()) {
    for (const Json& name : *keep) {
      if (name.is_string()) keep_unconverted(q, name.get<std::string>());
    }
  }
  read_kv_scheme(*config, DtypeSource::QuantizationConfig, arch);
  arch.quant = std::move(q);
  return core::ok();
}

auto read_hf_quant_config(const Json& file, const std::string& context, ModelArch& arch) -> Result<void> {
  const auto quant = file.is_object() ? file.find("quantization") : file.end();
  if (!file.is_object() || quant == file.end() || !quant->is_object()) {
    return core::fail(
        core::ErrorCode::InvalidArgument, context + ": no 'quantization' object",
        "hf_quant_config.json from NVIDIA ModelOpt holds {\"quantization\": {\"quant_algo\": ...}}");
  }
  Quantization q;
  q.method = "modelopt";
  q.source = DtypeSource::HfQuantConfig;
  q.converted = linear_layer_modules();
  if (auto r = read_modelopt(*quant, context, q); !r) return core::propagate(r);
  if (!arch.quant.method.empty() && arch.quant.method != "modelopt") {
    arch.notes.push_back("hf_quant_config.json replaces quantization_config (" + arch.quant.method + ")");
  }
  read_kv_scheme(*quant, DtypeSource::HfQuantConfig, arch);
  arch.quant = std::move(q);
  return core::ok();
}

}  // namespace solscope::ceiling::detail
