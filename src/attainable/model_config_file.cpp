#include "attainable/model_config_file.hpp"

#include <string>
#include <system_error>

#include "runtime/text_file.hpp"

namespace solscope::app {

auto load_model_arch(const std::filesystem::path& config_path, std::string_view hint)
    -> core::Result<ceiling::ModelArch> {
  auto text = read_text_file(config_path, "model config", hint);
  if (!text) return core::propagate(text);
  const std::filesystem::path quant_path = config_path.parent_path() / kHfQuantConfigName;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(quant_path, ec)) {
    return ceiling::parse_model_config(*text, config_path.string());
  }
  auto quant = read_text_file(quant_path, "ModelOpt quantization config",
                              "remove or fix the hf_quant_config.json beside config.json");
  if (!quant) return core::propagate(quant);
  return ceiling::parse_model_config(*text, config_path.string(), *quant);
}

}  // namespace solscope::app
