// quantization_config -> Quantization (docs/design/ceiling-model.md 2.5 item 1 and 3.1).
#include <algorithm>
#include <cctype>
#include <utility>

#include "ceiling/detail/model_quant.hpp"
#include "core/text.hpp"

namespace solscope::ceiling::detail {
namespace {

using core::Result;

constexpr double kMxfp4Bits = 4.25;  // 4-bit values + 8-bit scale per 32 (docs/design/ceiling-model.md 3.3)
constexpr double kScaleBits = 16.0;  // one FP16 scale per group for AWQ/GPTQ [G]

auto contains(const std::string& text, std::string_view part) -> bool {
  return text.find(part) != std::string::npos;
}

/// Applies a module name pattern of `modules_to_not_convert` / `ignore` ("model.layers.*.self_attn",
/// "lm_head", "model.embed_tokens", "model.layers.*.mlp.router") to the module groups.
void keep_unconverted(Quantization& q, const std::string& raw) {
  const std::string name = core::to_lower_ascii(raw);
  auto keep = [&q](Module m) { q.converted[index_of(m)] = false; };
  if (contains(name, "lm_head")) return keep(Module::LmHead);
  if (contains(name, "embed")) return keep(Module::Embedding);
  if (contains(name, "router") || name == "gate" ||
      (contains(name, "mlp.gate") && !contains(name, "gate_"))) {
    return keep(Module::Router);
  }
  if (contains(name, "shared_expert")) return keep(Module::SharedExperts);
  if (contains(name, "experts")) return keep(Module::Experts);
  if (contains(name, "attn") || contains(name, "attention")) return keep(Module::Attention);
  if (contains(name, "mlp")) {
    keep(Module::DenseMlp);
    keep(Module::Experts);
    keep(Module::SharedExperts);
  }
}

auto read_grouped_bits(const FieldReader& f, double default_bits) -> Result<double> {
  auto bits = f.ranged_integer({"bits", "w_bit", "num_bits"}, 1, 16);
  auto group = f.integer({"group_size", "q_group_size"});
  if (!bits) return core::propagate(bits);
  if (!group) return core::propagate(group);
  const double b = bits->has_value() ? static_cast<double>(**bits) : default_bits;
  const std::int64_t g = group->value_or(128);
  // Per group: one FP16 scale and one zero point of `b` bits [G]; group_size -1 means one per output channel.
  return g > 0 ? b + (kScaleBits + b) / static_cast<double>(g) : b;
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
  auto bits = read_grouped_bits(w, 8);
  if (!bits) return core::propagate(bits);
  const auto acts = group.find("input_activations");
  const bool w8a8 = acts != group.end() && acts->is_object() && *bits <= 8.5 && *bits >= 8;
  q.bits_per_weight = *bits;
  q.math = w8a8 ? (type->value_or("int") == "float" ? Dtype::Fp8 : Dtype::Int8) : Dtype::Bf16;
  if (const auto ignore = config.find("ignore"); ignore != config.end() && ignore->is_array()) {
    for (const Json& name : *ignore) {
      if (name.is_string()) keep_unconverted(q, name.get<std::string>());
    }
  }
  return core::ok();
}

/// Sets bits and math for one method; returns false for a method the model does not know.
auto read_method(const FieldReader& f, const Json& config, const std::string& context, Quantization& q)
    -> Result<bool> {
  const std::string method = core::to_lower_ascii(q.method);
  if (method == "fp8" || method == "fbgemm_fp8") {
    q.bits_per_weight = 8.0;  // block scales (128x128 in DeepSeek-V3) add under 0.01 bit per weight
    q.math = Dtype::Fp8;
  } else if (method == "mxfp4") {
    q.bits_per_weight = kMxfp4Bits;
    q.math = Dtype::Bf16;  // dequantised to BF16 on Hopper (2.5 item 1, [G])
  } else if (contains(method, "awq") || contains(method, "gptq") || method == "marlin") {
    auto bits = read_grouped_bits(f, 4);
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
  arch.quant = std::move(q);
  return core::ok();
}

}  // namespace solscope::ceiling::detail
