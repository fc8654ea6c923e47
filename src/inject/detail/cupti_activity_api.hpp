// The CUPTI Activity API functions the injection library uses, resolved from libcupti at run time (dlopen):
// the library links nothing from CUDA, like the NVIDIA source (docs/design/style.md section 5).
#pragma once

#include <cupti_activity.h>

#include <cstdint>
#include <string>

namespace solscope::inject {

/// NVTX's NvtxGetExportTableFunc_t: what NVTX hands an injection library's InitializeInjectionNvtx2.
using NvtxGetExportTable = const void* (*)(std::uint32_t export_table_id);

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
  /// libcupti's NVTX entry point, the one NVTX calls in the library NVTX_INJECTION64_PATH names (NVTX's
  /// nvtxInit.h: InitializeInjectionNvtx2(NvtxGetExportTableFunc_t)); optional.
  int (*initialize_nvtx2)(NvtxGetExportTable) = nullptr;
  /// The dlopen handle of the libcupti loaded (never closed); null before load() succeeds.
  void* handle = nullptr;

  /// Opens libcupti: `explicit_path` when not empty, else one already loaded in the process, else
  /// libcupti.so.13 / libcupti.so.12 / libcupti.so by soname. On failure returns a reason and leaves the
  /// table empty. The library stays loaded for the life of the process. A table loaded already is kept
  /// (returns success): every caller in a process gets the same libcupti.
  [[nodiscard]] auto load(const std::string& explicit_path) -> std::string;
  /// "CUPTI_ERROR_..." for `rc` (or its number when CUPTI has no string).
  [[nodiscard]] auto describe(CUptiResult rc) const -> std::string;
};

}  // namespace solscope::inject
