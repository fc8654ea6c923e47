#include "sources/nvidia/detail/pm_errors.hpp"

namespace solscope::nvidia {
namespace {

constexpr std::string_view kPrivilegeHint =
    "run solscope as root, or give it CAP_SYS_ADMIN, or CAP_PERFMON with NVIDIA driver R565+ (sudo setcap "
    "cap_perfmon+ep $(command -v solscope)); or let every user read GPU counters: add `options nvidia "
    "NVreg_RestrictProfilingToAdminUsers=0` to a file in /etc/modprobe.d/, rebuild the initramfs and reboot. "
    "Meanwhile NVML figures (classic utilization, clocks, power) still work";

// The start of every "counters held by another profiler" message (says_counters_busy looks for it).
constexpr std::string_view kBusyMessage =
    "GPU counters held by another profiler (DCGM, Nsight Compute/Systems, another solscope)";

constexpr std::string_view kBusyHint =
    "pause DCGM profiling with `dcgmi profile --pause` or stop the other profiler, then restart solscope; "
    "solscope falls back to NVML GPM";

// The reason text for the codes that mean "not on this kind of device"; empty for other codes.
auto unsupported_kind(CUptiResult result) -> std::string_view {
  switch (result) {
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
      return "profiling is not supported on this virtualized GPU";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return "the hypervisor does not allow profiling on this vGPU";
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
      return "profiling is not supported with confidential computing enabled";
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
      return "profiling is not supported on NVIDIA CMP (crypto mining) GPUs";
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
      return "PM sampling is not supported with MIG enabled";
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
      return "profiling is not supported on SLI-enabled GPUs";
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
      return "profiling is not supported on this GPU under WSL";
    default:
      return {};
  }
}

auto level_text(CUpti_Profiler_Support_Level level) -> std::string_view {
  switch (level) {
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED:
      return "unsupported";
    case CUPTI_PROFILER_CONFIGURATION_DISABLED:
      return "profiling disabled";
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED:
      return "supported";
    case CUPTI_PROFILER_CONFIGURATION_UNKNOWN:
      break;
  }
  return "unknown";
}

}  // namespace

auto pm_error(const CuptiApi& api, CUptiResult result, std::string_view call, PmCall kind,
              std::string_view device) -> core::Error {
  const std::string what =
      std::string(call) + " on " + std::string(device) + ": " + cupti_result_name(api, result);
  if (result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
    return {core::ErrorCode::PermissionDenied,
            "GPU performance counters are restricted to admin users (" + what + ")",
            std::string(kPrivilegeHint)};
  }
  if (std::string_view reason = unsupported_kind(result); !reason.empty()) {
    return {core::ErrorCode::Unimplemented, std::string(reason) + " (" + what + ")",
            "solscope falls back to NVML figures on this GPU"};
  }
  if (is_counters_busy(result, kind)) {
    return {core::ErrorCode::Unavailable, std::string(kBusyMessage) + " (" + what + ")",
            std::string(kBusyHint)};
  }
  if (is_device_gone(result)) {
    return {core::ErrorCode::Unavailable, "device lost (" + what + ")",
            "check the GPU with nvidia-smi; a GPU reset or driver reload ends sampling"};
  }
  return {core::ErrorCode::Unavailable, what, ""};
}

auto unsupported_reasons(const CUpti_Profiler_DeviceSupported_Params& params) -> std::string {
  std::string out;
  const auto add = [&out](std::string_view field, CUpti_Profiler_Support_Level level) {
    if (level == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return;
    out += (out.empty() ? "" : "; ") + std::string(field) + ": " + std::string(level_text(level));
  };
  add("architecture", params.architecture);
  add("SLI", params.sli);
  add("vGPU", params.vGpu);
  add("confidential computing", params.confidentialCompute);
  add("CMP", params.cmp);
  add("WSL", params.wsl);
  return out;
}

auto is_counters_busy(CUptiResult result, PmCall kind) -> bool {
  return result == CUPTI_ERROR_HARDWARE_BUSY ||
         (kind == PmCall::Enable &&
          (result == CUPTI_ERROR_INVALID_OPERATION || result == CUPTI_ERROR_UNKNOWN));
}

auto says_counters_busy(const core::Error& error) -> bool {
  return error.code == core::ErrorCode::Unavailable && error.message.rfind(kBusyMessage, 0) == 0;
}

auto is_device_gone(CUptiResult result) -> bool {
  return result == CUPTI_ERROR_INVALID_DEVICE || result == CUPTI_ERROR_NOT_INITIALIZED;
}

}  // namespace solscope::nvidia
