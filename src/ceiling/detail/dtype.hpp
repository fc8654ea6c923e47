// Numeric formats the ceiling model knows: element sizes and the math-rate column each one uses.
//
// Source: the columns of docs/design/ceiling-model.md section 1.3 (dense FLOP per clock per SM by dtype).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace solscope::ceiling {

/// A number format used for weights, activations, the KV cache or GEMM math. Each value is also a column of
/// the GPU spec table (docs/design/ceiling-model.md 1.3): `Fp64` uses the FP64 tensor-core rate where the
/// GPU has one, `Fp32` the FMA pipe (no tensor cores), `Tf32`..`Fp4` the tensor pipe. BF16/FP16 rates are
/// with FP32 accumulate.
enum class Dtype : std::uint8_t { Fp64, Fp32, Tf32, Bf16, Fp16, Fp8, Int8, Fp4, kCount };

/// Number of Dtype values.
inline constexpr std::size_t kDtypeCount = static_cast<std::size_t>(Dtype::kCount);

/// Index of a Dtype into per-dtype arrays.
[[nodiscard]] constexpr auto index_of(Dtype dtype) -> std::size_t {
  return static_cast<std::size_t>(dtype);
}

/// Bytes per element: 8, 4, 4 (TF32 is stored as FP32), 2, 2, 1, 1, 0.5.
[[nodiscard]] auto bytes_per_element(Dtype dtype) -> double;

/// Lowercase name used in the spec file, flags and JSON: "fp64", "fp32", "tf32", "bf16", "fp16", "fp8",
/// "int8", "fp4".
[[nodiscard]] auto to_string(Dtype dtype) -> std::string_view;

/// Inverse of to_string, also accepting Hugging Face `torch_dtype` spellings ("bfloat16", "float16",
/// "float32", "half", "float", "float8_e4m3fn", "fp8_e4m3", "e4m3", "e5m2"); nullopt for anything else.
[[nodiscard]] auto dtype_from_string(std::string_view name) -> std::optional<Dtype>;

/// True for the formats weights and the KV cache can be given in (Workload::dtype, Workload::kv_dtype, the
/// CLI's --dtype and --kv-dtype): bf16, fp16, fp32 and fp8. Lower-bit formats come only from a checkpoint's
/// quantization_config (docs/design/ceiling-model.md 2.5 item 1).
[[nodiscard]] constexpr auto is_storage_dtype(Dtype dtype) -> bool {
  return dtype == Dtype::Bf16 || dtype == Dtype::Fp16 || dtype == Dtype::Fp32 || dtype == Dtype::Fp8;
}

/// Every Dtype in declaration order.
[[nodiscard]] constexpr auto all_dtypes() -> std::array<Dtype, kDtypeCount> {
  return {Dtype::Fp64, Dtype::Fp32, Dtype::Tf32, Dtype::Bf16,
          Dtype::Fp16, Dtype::Fp8,  Dtype::Int8, Dtype::Fp4};
}

}  // namespace solscope::ceiling
