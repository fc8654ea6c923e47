#include "ceiling/ceiling_text.hpp"

#include <fmt/format.h>

namespace solscope::ceiling {

auto layout_text(const Ceiling& c) -> std::string {
  std::string text = fmt::format("TP {}", c.tensor_parallel);
  if (c.expert_parallel > 1) text += fmt::format(", EP {}", c.expert_parallel);
  if (c.attention_dp > 1) text += fmt::format(", attention DP {}", c.attention_dp);
  if (c.pipeline_parallel > 1) text += fmt::format(", PP {}", c.pipeline_parallel);
  return text;
}

}  // namespace solscope::ceiling
