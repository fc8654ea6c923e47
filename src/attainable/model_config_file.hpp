// Reads a model's Hugging Face config.json, and the ModelOpt hf_quant_config.json beside it when there is one
// (NVIDIA's NVFP4/FP8 checkpoints; docs/design/ceiling-model.md 3.6).
#pragma once

#include <filesystem>
#include <string_view>

#include "ceiling/model_arch.hpp"
#include "core/result.hpp"

namespace solscope::app {

/// Name of the ModelOpt quantization file looked for in the directory of config.json.
inline constexpr std::string_view kHfQuantConfigName = "hf_quant_config.json";

/// Reads `config_path` and parses it with ceiling::parse_model_config; when `hf_quant_config.json` exists
/// in the same directory it is read and passed along (its quantization replaces config.json's). Errors:
/// those of read_text_file for either file (`hint` goes with errors about config.json) and of
/// parse_model_config.
[[nodiscard]] auto load_model_arch(const std::filesystem::path& config_path, std::string_view hint = {})
    -> core::Result<ceiling::ModelArch>;

}  // namespace solscope::app
