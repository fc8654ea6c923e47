// Reading the attention kernel families of an architecture row of the GPU spec file
// (docs/design/ceiling-model.md 2.5 item 4, 2.7 "Kernel families", 7). Internal to src/ceiling.
#pragma once

#include <array>
#include <string>

#include "ceiling/detail/json_read.hpp"
#include "ceiling/gpu_spec.hpp"

namespace solscope::ceiling::detail {

/// Reads {"default": x, "<dtype>": y, ...} (each value in (0, 1]) into a per-dtype array; "default" is
/// required and fills every dtype the object does not name. Errors: InvalidArgument naming `context` and the
/// key that is not a dtype or whose value is out of range.
[[nodiscard]] auto read_dtype_efficiency(const Json& object, const std::string& context)
    -> core::Result<std::array<double, kDtypeCount>>;

/// The row's "attention_kernels" object ({"prefill": {...}, "decode": {...}, "mla_decode": {...}}, each
/// {"kernel", "efficiency", "query_tile", "fp8_math"}) or, in a spec file written before it existed, the
/// single "attention_efficiency" mapped to every family at every dtype with query tile 1 and no FP8 math
/// (the old costing). Errors: InvalidArgument when both are missing or a field is out of range (query tile
/// 1-4096).
[[nodiscard]] auto read_attention_kernels(const Json& row, const std::string& context)
    -> core::Result<AttentionKernels>;

}  // namespace solscope::ceiling::detail
