// The built-in GPU spec file: data/gpu_specs.json, embedded at build time so that the binary works offline.
#pragma once

#include <string_view>

namespace solscope::ceiling {

/// The text of data/gpu_specs.json as it was when solscope was built (CMake embeds it through
/// default_gpu_specs.cpp.in). Parse it with parse_gpu_database(text, "built-in GPU specs").
[[nodiscard]] auto default_gpu_specs_json() -> std::string_view;

}  // namespace solscope::ceiling
