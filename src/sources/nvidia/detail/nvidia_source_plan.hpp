// The NVIDIA source's choice of counter source per GPU, as plain functions: which devices to sample, whether
// to try PM sampling, and the reason and hint shown when a better source was not used
// (docs/design/architecture.md section 3; docs/design/cupti-pm-sampling.md sections 4-5).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "sources/counter_source.hpp"
#include "sources/nvidia/detail/gpm_reader.hpp"
#include "sources/nvidia/detail/profiling_permission.hpp"

namespace solscope::nvidia {

/// Whether PM sampling is (still) in the running for a device, and if not, why and what would fix it.
struct PmChoice {
  bool try_pm = false;
  std::string
      reason;  ///< "" when try_pm; else e.g. "PM sampling denied: profiling is restricted to admin users"
  std::string hint;  ///< the fix, "" when none
};

/// The hint for counters held by another profiler.
inline constexpr std::string_view kBusyCountersHint =
    "stop the other profiler (`dcgmi profile --pause` pauses DCGM profiling; close Nsight), or attach to the "
    "solscope daemon that already samples this GPU";

/// Before any CUPTI call: PM sampling is skipped when MIG is enabled, when the pre-flight says "no", or when
/// no PM sampler is available (`pm_available` false); otherwise it will be tried. `device_index` names the
/// device in hints.
[[nodiscard]] auto plan_pm_sampling(std::uint32_t device_index, bool mig_enabled,
                                    const ProfilingPermission& permission, bool pm_available) -> PmChoice;

/// How a MIG device is sampled: never PM sampling (CUPTI answers CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED on MIG;
/// docs/design/cupti-pm-sampling.md section 5), GPM of its GPU instance when the parent supports GPM and NVML
/// has nvmlGpmMigSampleGet, else NVML only.
struct MigChoice {
  PmChoice pm;         ///< try_pm false, with the reason and the fix
  GpmSupportInfo gpm;  ///< unsupported: "no per-instance counters on <arch> MIG: <why>"
};

/// The MigChoice of a MIG device of the GPU `parent` (NVML index `parent_index`, architecture `arch`).
[[nodiscard]] auto plan_mig_device(const NvmlApi& api, nvml::Device parent, nvml::Architecture arch,
                                   std::uint32_t parent_index) -> MigChoice;

/// The reason and hint for a failed PmSampling::open, by error code: PermissionDenied -> "PM sampling denied:
/// profiling is restricted to admin users" (+ the permission fix); Unavailable -> "PM sampling unavailable:
/// counters held by another profiler (DCGM, Nsight, another solscope)"; Unimplemented -> "PM sampling not
/// supported: <sampler's message>" (e.g. "chip GV100 has no single-pass counter set"); others -> "PM sampling
/// failed: <message>". try_pm is false.
[[nodiscard]] auto pm_open_failure(const core::Error& error) -> PmChoice;

/// The DeviceStatus of a device sampled by `chosen` after PM sampling was ruled out by `pm` (ignored when
/// chosen is PmSampling) and, for NvmlOnly, GPM by `gpm`: reason = the PM reason, plus "; GPM: <gpm reason>"
/// for NvmlOnly; hint = the PM hint.
[[nodiscard]] auto fallback_status(core::SourceKind chosen, const PmChoice& pm, const GpmSupportInfo& gpm)
    -> sources::DeviceStatus;

/// The devices to sample: every index below `device_count` when `requested` is empty, else `requested` sorted
/// with duplicates dropped. Errors: InvalidArgument "device 5 does not exist: valid indices are 0-1" (or "the
/// only valid index is 0"), NotFound "no NVIDIA GPU found" when `device_count` is 0.
[[nodiscard]] auto select_devices(const std::vector<std::uint32_t>& requested, std::uint32_t device_count)
    -> core::Result<std::vector<std::uint32_t>>;

}  // namespace solscope::nvidia
