// From CUPTI result codes to solscope errors with a message and a fix (internal to the PM sampler; includes
// CUPTI headers through cupti_api.hpp).
//
// Sources: cupti_result.h codes 26, 33, 35, 40-45; docs/design/cupti-pm-sampling.md section 4 (privileges
// and concurrency) and section 7.
#pragma once

#include <string>
#include <string_view>

#include "core/result.hpp"
#include "sources/nvidia/detail/cupti_api.hpp"

namespace solscope::nvidia {

/// Which call failed: Enable also reports a busy perf-monitor unit as INVALID_OPERATION (7) or UNKNOWN (999).
enum class PmCall { Enable, Other };

/// The error for a failed CUPTI call `call` on `device` (e.g. "GPU 0 (0000:17:00.0)"):
/// - CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35) -> PermissionDenied; the hint names root, CAP_SYS_ADMIN,
/// CAP_PERFMON
///   (driver R565+) and `options nvidia NVreg_RestrictProfilingToAdminUsers=0`, and says NVML figures still
///   work;
/// - virtualization, confidential computing, CMP, MIG, SLI, WSL (33, 40-45) -> Unimplemented with the reason;
/// - HARDWARE_BUSY (26), and INVALID_OPERATION (7) or UNKNOWN (999) from Enable -> Unavailable "GPU counters
/// held
///   by another profiler (DCGM, Nsight Compute/Systems, another solscope)" with the `dcgmi profile --pause`
///   hint;
/// - INVALID_DEVICE (2), NOT_INITIALIZED (15) -> Unavailable "device lost";
/// - anything else -> Unavailable naming the call and the CUPTI result.
[[nodiscard]] auto pm_error(const CuptiApi& api, CUptiResult result, std::string_view call, PmCall kind,
                            std::string_view device) -> core::Error;

/// Why cuptiProfilerDeviceSupported said no: the fields that are not SUPPORTED, e.g. "vGPU: profiling
/// disabled; WSL: unsupported". Empty when every field is SUPPORTED.
[[nodiscard]] auto unsupported_reasons(const CUpti_Profiler_DeviceSupported_Params& params) -> std::string;

/// True for results that mean another profiler holds the GPU's counters (section 4): HARDWARE_BUSY (26, "the
/// hardware is busy", CUPTI result codes, https://docs.nvidia.com/cupti/api/group__CUPTI__RESULT__API.html)
/// from any call, and INVALID_OPERATION (7) or UNKNOWN (999) from Enable.
[[nodiscard]] auto is_counters_busy(CUptiResult result, PmCall kind) -> bool;

/// True for an error that pm_error() made for counters held by another profiler (is_counters_busy), so that
/// callers holding only the core::Error (a failed start_session) can tell a yield from a failure.
[[nodiscard]] auto says_counters_busy(const core::Error& error) -> bool;

/// True for results that mean the device or the driver went away (INVALID_DEVICE, NOT_INITIALIZED): the
/// device is lost for good, without retries.
[[nodiscard]] auto is_device_gone(CUptiResult result) -> bool;

}  // namespace solscope::nvidia
