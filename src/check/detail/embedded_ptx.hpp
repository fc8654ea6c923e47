// The PTX files of src/check/kernels/, embedded into the binary at build time (src/check/CMakeLists.txt
// generates embedded_ptx.cpp from them).
#pragma once

#include <string_view>

namespace solscope::check {

/// The text of src/check/kernels/<file> as it was when solscope was built ("fma.ptx"); empty for an unknown
/// file.
[[nodiscard]] auto embedded_ptx(std::string_view file) -> std::string_view;

}  // namespace solscope::check
