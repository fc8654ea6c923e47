// Reads `quantization_config` into ModelArch::quant (internal to src/ceiling).
#pragma once

#include <string>

#include "ceiling/detail/json_read.hpp"
#include "ceiling/model_arch.hpp"

namespace solscope::ceiling::detail {

/// Fills `arch.quant` from a `quantization_config` object (nullptr: not quantized) and appends notes for
/// methods it cannot model. Methods: fp8 (W8A8, block scales), mxfp4 (4.25 bits, BF16 math), awq/gptq and
/// their marlin variants, compressed-tensors (first config group), bitsandbytes. Source:
/// docs/design/ceiling-model.md 2.5 item 1, 3.1, 3.3.
[[nodiscard]] auto read_quantization(const Json* config, const std::string& context, ModelArch& arch)
    -> core::Result<void>;

}  // namespace solscope::ceiling::detail
