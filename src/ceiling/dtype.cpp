#include "ceiling/dtype.hpp"
#include "core/enum_names.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace solscope::ceiling {

auto bytes_per_element(Dtype dtype) -> double {
  switch (dtype) {
    case Dtype::Fp64:
      return 8.0;
    case Dtype::Fp32:
    case Dtype::Tf32:
      return 4.0;
    case Dtype::Bf16:
    case Dtype::Fp16:
      return 2.0;
    case Dtype::Fp8:
    case Dtype::Int8:
      return 1.0;
    case Dtype::Fp4:
      return 0.5;
    case Dtype::kCount:
      break;
  }
  return 0.0;
}

constexpr core::EnumNames<Dtype> kDtypeNames({"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4"},
                                             "unknown");

auto to_string(Dtype dtype) -> std::string_view {
  return kDtypeNames(dtype);
}

auto dtype_from_string(std::string_view name) -> std::optional<Dtype> {
  const std::string lower = core::to_lower_ascii(name);
  for (Dtype d : all_dtypes()) {
    if (lower == to_string(d)) return d;
  }
  if (lower == "bfloat16") return Dtype::Bf16;
  if (lower == "float16" || lower == "half") return Dtype::Fp16;
  if (lower == "float32" || lower == "float") return Dtype::Fp32;
  if (lower == "float64" || lower == "double") return Dtype::Fp64;
  if (lower == "float8_e4m3fn" || lower == "fp8_e4m3" || lower == "e4m3" || lower == "fp8_e5m2" ||
      lower == "e5m2" || lower == "float8") {
    return Dtype::Fp8;
  }
  return std::nullopt;
}

}  // namespace solscope::ceiling
