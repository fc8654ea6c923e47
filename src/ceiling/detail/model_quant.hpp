// Reads `quantization_config` into ModelArch::quant (internal to src/ceiling).
#pragma once

#include <string>

#include "ceiling/detail/json_read.hpp"
#include "ceiling/model_arch.hpp"

namespace solscope::ceiling::detail {

/// Fills `arch.quant` from a `quantization_config` object (nullptr: not quantized) and appends notes for
/// methods it cannot model. Methods: fp8 (W8A8, block scales), mxfp4 (4.25 bits), modelopt (NVFP4 4.5 bits,
/// FP8, INT4 AWQ), awq/gptq and their marlin variants, compressed-tensors (first config group), bitsandbytes.
/// Source: docs/design/ceiling-model.md 2.5 item 1, 3.1, 3.3.
[[nodiscard]] auto read_quantization(const Json* config, const std::string& context, ModelArch& arch)
    -> core::Result<void>;

/// Fills `arch.quant` (and `arch.kv_cache_dtype`) from a ModelOpt `hf_quant_config.json` document:
/// {"quantization": {"quant_algo", "group_size", "exclude_modules", "kv_cache_quant_algo"}}. Errors:
/// InvalidArgument without a `quantization` object or for an unknown quant_algo (3.6).
[[nodiscard]] auto read_hf_quant_config(const Json& file, const std::string& context, ModelArch& arch)
    -> core::Result<void>;

}  // namespace solscope::ceiling::detail
