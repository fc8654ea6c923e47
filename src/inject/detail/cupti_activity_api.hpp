// The CUPTI Activity API functions the injection library uses, resolved from libcupti at run time (dlopen):
// the library links nothing from CUDA, like the NVIDIA source (docs/design/style.md section 5).
#pragma once

#include <cupti_activity.h>

#include <string>

namespace solscope::inject {

/// Function table. The optional entries may be null (older CUPTI); the others are there after load()
/// succeeds.
struct CuptiActivityApi {
  CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
                                    CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*enable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*flush_all)(uint32_t) = nullptr;
  CUptiResult (*get_timestamp)(uint64_t*) = nullptr;
  CUptiResult (*get_next_record)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
  CUptiResult (*get_result_string)(CUptiResult, const char**) = nullptr;
  CUptiResult (*get_num_dropped)(CUcontext, uint32_t, size_t*) = nullptr;  ///< optional
  CUptiResult (*flush_period)(uint32_t) = nullptr;                         ///< optional
  CUptiResult (*get_version)(uint32_t*) = nullptr;                         ///< optional

  /// Opens libcupti: `explicit_path` when not empty, else one already loaded in the process, else
  /// libcupti.so.13 / libcupti.so.12 / libcupti.so by soname. On failure returns a reason and leaves the
  /// table empty. The library stays loaded for the life of the process.
  [[nodiscard]] auto load(const std::string& explicit_path) -> std::string;
  /// "CUPTI_ERROR_..." for `rc` (or its number when CUPTI has no string).
  [[nodiscard]] auto describe(CUptiResult rc) const -> std::string;
};

}  // namespace solscope::inject
