#include "ceiling/ceiling_text.hpp"

#include <fmt/format.h>

#include <iterator>

#include "core/enum_table.hpp"

namespace solscope::ceiling {

auto layout_text(const Ceiling& c) -> std::string {
  std::string text = fmt::format("TP {}", c.tensor_parallel);
  if (c.expert_parallel > 1) text += fmt::format(", EP {}", c.expert_parallel);
  if (c.attention_dp > 1) text += fmt::format(", attention DP {}", c.attention_dp);
  if (c.pipeline_parallel > 1) text += fmt::format(", PP {}", c.pipeline_parallel);
  return text;
}

namespace {

/// What precedes a choice's detail for each source; a flag's detail is the flag itself.
constexpr core::EnumNames<DtypeSource> kSourceTexts({"config.json", "quantization_config",
                                                     "hf_quant_config.json", "", "fallback", "default"},
                                                    "unknown");

}  // namespace

auto dtype_choice_text(const DtypeChoice& choice) -> std::string {
  const std::string_view source = kSourceTexts(choice.source);
  std::string origin(source);
  if (!choice.detail.empty()) {
    const std::string_view separator = source.empty()                         ? ""
                                       : choice.source == DtypeSource::Config ? " "
                                                                              : ": ";
    origin += std::string(separator) + choice.detail;
  }
  return origin.empty() ? choice.dtype : choice.dtype + " (" + origin + ")";
}

auto dtype_lines(const DtypeChoices& dtypes) -> std::string {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "  {:<22}  {}\n", "weights", dtype_choice_text(dtypes.weights));
  fmt::format_to(it, "  {:<22}  {}\n", "activations", dtype_choice_text(dtypes.activations));
  fmt::format_to(it, "  {:<22}  {}\n", "KV cache", dtype_choice_text(dtypes.kv_cache));
  fmt::format_to(it, "  {:<22}  {}\n", "GEMM math", dtype_choice_text(dtypes.gemm_math));
  return out;
}

auto dtypes_brief(const DtypeChoices& dtypes) -> std::string {
  return fmt::format("weights {}, activations {}, KV cache {}, GEMM math {}", dtypes.weights.dtype,
                     dtypes.activations.dtype, dtypes.kv_cache.dtype, dtypes.gemm_math.dtype);
}

}  // namespace solscope::ceiling
