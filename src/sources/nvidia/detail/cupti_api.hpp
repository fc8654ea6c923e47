// CuptiApi: the CUPTI functions solscope calls, as a table of plain function pointers filled by load_cupti()
// (dlopen of libcupti at run time) or, in tests, by fakes.
//
// This header is the vendor seam of the PM sampler: it includes the CUPTI headers of the CUDA toolkit (their
// parameter structs are the ABI) and is included only by the sampler's .cpp files and its tests, never by a
// header that other layers see (pm_sampler.hpp forward-declares CuptiApi). Symbol list and loading rules:
// docs/design/cupti-pm-sampling.md section 6.
#pragma once

#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <cupti_version.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "sources/library_search.hpp"

namespace solscope::nvidia {

/// Where load_cupti() looks beyond the system paths (sources/library_search.hpp).
using CuptiSearch = sources::LibrarySearch;

/// CUPTI API version of CUDA 12.6, the first CUPTI with PM sampling (`cupti_version.h`: v24 = CUDA
/// Toolkit 12.6).
inline constexpr std::uint32_t kMinCuptiVersion = 24;

/// CUPTI API version of CUDA 12.8, the first whose `CUpti_PmSampling_SetConfig_Params` has
/// `hwBufferAppendMode` (doc section 5; `cupti_version.h`: v26 = CUDA Toolkit 12.8).
inline constexpr std::uint32_t kCuptiVersionWithAppendMode = 26;

/// Functions every PM-sampling session needs; load_cupti() fails when one is missing.
struct CuptiRequiredFns {
  decltype(&::cuptiGetVersion) get_version = nullptr;
  decltype(&::cuptiGetResultString) get_result_string = nullptr;
  decltype(&::cuptiProfilerInitialize) profiler_initialize = nullptr;
  decltype(&::cuptiProfilerDeInitialize) profiler_deinitialize = nullptr;
  decltype(&::cuptiProfilerDeviceSupported) profiler_device_supported = nullptr;
  decltype(&::cuptiDeviceGetChipName) device_get_chip_name = nullptr;
  decltype(&::cuptiPmSamplingGetCounterAvailability) pm_get_counter_availability = nullptr;
  decltype(&::cuptiPmSamplingEnable) pm_enable = nullptr;
  decltype(&::cuptiPmSamplingSetConfig) pm_set_config = nullptr;
  decltype(&::cuptiPmSamplingGetCounterDataSize) pm_get_counter_data_size = nullptr;
  decltype(&::cuptiPmSamplingCounterDataImageInitialize) pm_counter_data_image_initialize = nullptr;
  decltype(&::cuptiPmSamplingStart) pm_start = nullptr;
  decltype(&::cuptiPmSamplingStop) pm_stop = nullptr;
  decltype(&::cuptiPmSamplingDecodeData) pm_decode_data = nullptr;
  decltype(&::cuptiPmSamplingGetCounterDataInfo) pm_get_counter_data_info = nullptr;
  decltype(&::cuptiPmSamplingCounterDataGetSampleInfo) pm_counter_data_get_sample_info = nullptr;
  decltype(&::cuptiPmSamplingDisable) pm_disable = nullptr;
  decltype(&::cuptiProfilerHostInitialize) host_initialize = nullptr;
  decltype(&::cuptiProfilerHostDeinitialize) host_deinitialize = nullptr;
  decltype(&::cuptiProfilerHostConfigAddMetrics) host_config_add_metrics = nullptr;
  decltype(&::cuptiProfilerHostGetConfigImageSize) host_get_config_image_size = nullptr;
  decltype(&::cuptiProfilerHostGetConfigImage) host_get_config_image = nullptr;
  decltype(&::cuptiProfilerHostGetNumOfPasses) host_get_num_of_passes = nullptr;
  decltype(&::cuptiProfilerHostEvaluateToGpuValues) host_evaluate_to_gpu_values = nullptr;
};

/// Functions used when present (null otherwise): metric discovery for `solscope devices --metrics` and tests.
struct CuptiOptionalFns {
  decltype(&::cuptiGetErrorMessage) get_error_message = nullptr;
  decltype(&::cuptiProfilerHostGetMetricProperties) host_get_metric_properties = nullptr;
  decltype(&::cuptiProfilerHostGetBaseMetrics) host_get_base_metrics = nullptr;
  decltype(&::cuptiProfilerHostGetSubMetrics) host_get_sub_metrics = nullptr;
  decltype(&::cuptiProfilerHostGetSupportedChips) host_get_supported_chips = nullptr;
  decltype(&::cuptiProfilerHostGetMaxNumHardwareMetricsPerPass) host_get_max_num_hardware_metrics_per_pass =
      nullptr;
  /// `cuptiProfilerHostGetSinglePassSets` (CUDA 13.2+). Its signature is not in the 13.0 headers, so only its
  /// presence is recorded; it is never called.
  void* host_get_single_pass_sets = nullptr;
};

/// The CUPTI function table. Plain data: tests fill the pointers with fakes; load_cupti() fills them from
/// libcupti and keeps the library loaded through `libraries`. Copies share the libraries.
struct CuptiApi : CuptiRequiredFns, CuptiOptionalFns {
  std::uint32_t version = 0;  ///< cuptiGetVersion(): 24 = CUDA 12.6 ... 28 = 12.9 U1, then xxyyzz (130001)
  std::string library_path;   ///< the libcupti that was loaded; "" for fakes
  std::shared_ptr<void> libraries;  ///< keeps libcupti and libnvperf_host open; null for fakes
};

/// Checks a filled table: every required pointer set, and cuptiGetVersion() answering >= kMinCuptiVersion.
/// Stores the version in `api.version`. Errors: NotFound (a required pointer unset: "lacks PM sampling
/// functions"; load_cupti names the symbols), Unavailable (cuptiGetVersion failed), Unimplemented (libcupti
/// older than CUDA 12.6, with the version found and what to install).
[[nodiscard]] auto validate_cupti(CuptiApi& api) -> core::Result<void>;

/// Directories and sonames load_cupti() tries, in order (doc section 6): search.override_dir, the sonames
/// libcupti.so.13 and libcupti.so.12 (ld cache, LD_LIBRARY_PATH), search.toolkit_home/lib64 and
/// extras/CUPTI/lib64, /usr/local/cuda/lib64, /usr/local/cuda/extras/CUPTI/lib64,
/// /usr/local/cuda-*/lib64 (newest version first), and the pip wheel folders nvidia/cuda_cupti/lib and
/// nvidia/cu13/lib under the Python site directories in /usr/lib/python3*, /usr/local/lib/python3* and
/// search.home/.local/lib/python3* (and search.virtual_env/lib/python3*). Entries are full file paths or
/// sonames.
[[nodiscard]] auto cupti_candidates(const CuptiSearch& search) -> std::vector<std::string>;

/// Loads libcupti: tries cupti_candidates(search) in order, preloads libnvperf_host.so from the same
/// directory with RTLD_GLOBAL (libcupti dlopens it by bare soname; doc section 6), resolves every symbol and
/// validates the table. A library older than CUDA 12.6 is skipped in favour of a later candidate. Only
/// cuptiGetVersion is called: no target-side CUPTI, so this is safe without a GPU or driver. Errors: NotFound
/// (no libcupti anywhere, or a required symbol missing), Unimplemented (only libcupti older than 12.6 found).
[[nodiscard]] auto load_cupti(const CuptiSearch& search) -> core::Result<CuptiApi>;

/// "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35)": the enum name from cuptiGetResultString, or the number alone.
[[nodiscard]] auto cupti_result_name(const CuptiApi& api, CUptiResult result) -> std::string;

}  // namespace solscope::nvidia
