#include "ceiling/detail/dtype.hpp"
#include "core/enum_table.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace solscope::ceiling {

constexpr core::EnumTable<Dtype, double> kBytesPerElement({8.0, 4.0, 4.0, 2.0, 2.0, 1.0, 1.0, 0.5}, 0.0);

auto bytes_per_element(Dtype dtype) -> double {
  return kBytesPerElement(dtype);
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
