#include "sources/nvidia/detail/nvidia_source_plan.hpp"

#include <algorithm>

#include "sources/nvidia/detail/mig_devices.hpp"

namespace solscope::nvidia {

auto plan_pm_sampling(std::uint32_t device_index, bool mig_enabled, const ProfilingPermission& permission,
                      bool pm_available) -> PmChoice {
  if (mig_enabled) {
    // CUPTI has an error for MIG (43) and PM sampling under MIG is untested (doc section 5): do not try.
    return {.try_pm = false,
            .reason = "PM sampling not available: MIG is enabled on this GPU",
            .hint = "disable MIG for PM sampling (sudo nvidia-smi -i " + std::to_string(device_index) +
                    " -mig 0)"};
  }
  if (permission.allowed == ProfilingAllowed::No) {
    return {.try_pm = false, .reason = "PM sampling denied: " + permission.reason, .hint = permission.fix};
  }
  if (!pm_available) {
    return {.try_pm = false,
            .reason = "PM sampling not available: no CUPTI PM sampler in this build",
            .hint = {}};
  }
  return {.try_pm = true, .reason = {}, .hint = {}};
}

auto plan_mig_device(const NvmlApi& api, nvml::Device parent, nvml::Architecture arch,
                     std::uint32_t parent_index) -> MigChoice {
  MigChoice choice;
  choice.pm = {.try_pm = false,
               .reason = "PM sampling not available on MIG instances (CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED)",
               .hint = "for every pipe and path, disable MIG (sudo nvidia-smi -i " +
                       std::to_string(parent_index) +
                       " -mig 0); per instance, DCGM's profiling fields give them (--dcgm-exporter)"};
  choice.gpm = query_gpm_support(api, parent);
  if (choice.gpm.supported && api.gpm_mig_sample_get == nullptr) {
    choice.gpm = {.supported = false,
                  .reason = "this driver's NVML has no nvmlGpmMigSampleGet (update the NVIDIA driver)"};
  }
  if (!choice.gpm.supported) {
    choice.gpm.reason =
        "no per-instance counters on " + std::string(architecture_name(arch)) + " MIG: " + choice.gpm.reason;
  }
  return choice;
}

auto pm_open_failure(const core::Error& error) -> PmChoice {
  switch (error.code) {
    case core::ErrorCode::PermissionDenied:
      return {.try_pm = false,
              .reason = "PM sampling denied: profiling is restricted to admin users",
              .hint = profiling_permission_fix()};
    case core::ErrorCode::Unavailable:
      return {.try_pm = false,
              .reason =
                  "PM sampling unavailable: counters held by another profiler (DCGM, Nsight, another "
                  "solscope)",
              .hint = std::string(kBusyCountersHint)};
    case core::ErrorCode::Unimplemented:
      return {.try_pm = false, .reason = "PM sampling not supported: " + error.message, .hint = error.hint};
    default:
      return {.try_pm = false, .reason = "PM sampling failed: " + error.message, .hint = error.hint};
  }
}

auto fallback_status(core::SourceKind chosen, const PmChoice& pm, const GpmSupportInfo& gpm)
    -> sources::DeviceStatus {
  sources::DeviceStatus status;
  status.source = chosen;
  if (chosen == core::SourceKind::PmSampling) return status;
  status.reason = pm.reason;
  status.hint = pm.hint;
  if (chosen == core::SourceKind::NvmlOnly && !gpm.reason.empty()) {
    if (!status.reason.empty()) status.reason += "; ";
    status.reason += "GPM: " + gpm.reason;
  }
  return status;
}

auto select_devices(const std::vector<std::uint32_t>& requested, std::uint32_t device_count)
    -> core::Result<std::vector<std::uint32_t>> {
  if (device_count == 0) {
    return core::fail(core::ErrorCode::NotFound, "no NVIDIA GPU found",
                      "nvidia-smi should list the GPUs; in a container, run it with --gpus all");
  }
  std::vector<std::uint32_t> selected;
  if (requested.empty()) {
    for (std::uint32_t i = 0; i < device_count; ++i) selected.push_back(i);
    return selected;
  }
  for (const std::uint32_t index : requested) {
    if (index >= device_count) {
      const std::string range = device_count == 1 ? "the only valid index is 0"
                                                  : "valid indices are 0-" + std::to_string(device_count - 1);
      return core::fail(core::ErrorCode::InvalidArgument,
                        "device " + std::to_string(index) + " does not exist: " + range,
                        "run `solscope devices` to list the GPUs");
    }
    selected.push_back(index);
  }
  std::sort(selected.begin(), selected.end());
  selected.erase(std::unique(selected.begin(), selected.end()), selected.end());
  return selected;
}

}  // namespace solscope::nvidia
