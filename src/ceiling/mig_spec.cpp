#include "ceiling/mig_spec.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace solscope::ceiling {
namespace {

auto is_share(double share) -> bool {
  return std::isfinite(share) && share > 0.0 && share <= 1.0;
}

auto unknown_share(const core::DeviceInfo& instance) {
  return core::fail(core::ErrorCode::FailedPrecondition,
                    "the share of the GPU that " + core::device_label(instance) + " has is unknown",
                    "solscope needs its SM count or its MIG profile to scale the GPU's peaks");
}

}  // namespace

auto mig_instance_spec(const GpuSpec& gpu, const core::DeviceInfo& instance) -> core::Result<GpuSpec> {
  if (!instance.is_mig()) return gpu;
  GpuSpec out = gpu;
  if (instance.sm_count > 0 && gpu.sm_count > 0 && static_cast<int>(instance.sm_count) <= gpu.sm_count) {
    out.sm_count = static_cast<int>(instance.sm_count);
  } else if (is_share(instance.mig_sm_share)) {
    out.sm_count = std::max(1, static_cast<int>(std::lround(gpu.sm_count * instance.mig_sm_share)));
  } else {
    return unknown_share(instance);
  }
  double memory_share = instance.mig_memory_share;
  if (!is_share(memory_share) && instance.memory_total_bytes > 0 && gpu.memory_bytes > 0.0) {
    memory_share = static_cast<double>(instance.memory_total_bytes) / gpu.memory_bytes;
  }
  if (!is_share(memory_share)) return unknown_share(instance);
  out.memory_bandwidth_bytes_per_s = gpu.memory_bandwidth_bytes_per_s * memory_share;
  out.l2_mb = gpu.l2_mb * memory_share;
  out.memory_bytes = instance.memory_total_bytes > 0 ? static_cast<double>(instance.memory_total_bytes)
                                                     : gpu.memory_bytes * memory_share;
  out.link_bidir_bytes_per_s = 0.0;
  out.id = gpu.id + " MIG" + (instance.mig_profile.empty() ? std::string() : " " + instance.mig_profile);
  return out;
}

}  // namespace solscope::ceiling
