#include "sources/nvidia/detail/mig_devices.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <optional>

namespace solscope::nvidia {
namespace {

constexpr double kBytesPerMib = 1024.0 * 1024.0;
constexpr std::string_view kMigWord = "MIG ";

template <std::size_t N>
auto to_text(const std::array<char, N>& buf) -> std::string {
  return {buf.data(), ::strnlen(buf.data(), N)};
}

auto share(double part, double whole) -> double {
  return part > 0.0 && whole > 0.0 ? part / whole : std::numeric_limits<double>::quiet_NaN();
}

/// The parent's profile with the instance's slices and memory, "MIG " dropped; "" when none matches.
auto profile_by_attributes(const MigParentFigures& parent, const nvml::DeviceAttributes& attrs)
    -> std::string {
  for (const auto& p : parent.profiles) {
    if (p.slice_count == attrs.gpu_instance_slice_count && p.memory_size_mb == attrs.memory_size_mb) {
      return mig_profile_from_name(to_text(p.name));
    }
  }
  return {};
}

/// One MIG device's facts; nullopt when NVML does not give its ids, attributes or UUID (sets `lost` on
/// NVML_ERROR_GPU_IS_LOST).
auto describe(const NvmlApi& api, nvml::Device mig, const core::DeviceInfo& parent_info,
              const MigParentFigures& parent, bool& lost) -> std::optional<core::DeviceInfo> {
  unsigned int gi = 0;
  unsigned int ci = 0;
  nvml::DeviceAttributes attrs{};
  std::array<char, nvml::kUuidBufferSize> uuid{};
  for (const nvml::Return rc :
       {api.device_get_gpu_instance_id(mig, &gi), api.device_get_compute_instance_id(mig, &ci),
        api.device_get_attributes(mig, &attrs),
        api.device_get_uuid(mig, uuid.data(), nvml::kUuidBufferSize)}) {
    lost = lost || rc == nvml::kErrorGpuIsLost;
    if (rc != nvml::kSuccess) return std::nullopt;
  }
  core::DeviceInfo info;
  info.uuid = to_text(uuid);
  info.name = parent_info.name;
  info.pci_bus_id = parent_info.pci_bus_id;
  info.max_sm_clock_mhz = parent_info.max_sm_clock_mhz;
  info.max_mem_clock_mhz = parent_info.max_mem_clock_mhz;
  info.parent_uuid = parent_info.uuid;
  info.gpu_index = static_cast<std::int32_t>(parent_info.index);
  info.mig_instance_id = static_cast<std::int32_t>(gi);
  info.mig_compute_instance_id = static_cast<std::int32_t>(ci);
  info.sm_count = attrs.multiprocessor_count;
  info.memory_total_bytes =
      static_cast<std::uint64_t>(static_cast<double>(attrs.memory_size_mb) * kBytesPerMib);
  std::array<char, nvml::kNameBufferSize> name{};
  if (api.device_get_name(mig, name.data(), nvml::kNameBufferSize) == nvml::kSuccess) {
    info.mig_profile = mig_profile_from_name(to_text(name));
  }
  if (info.mig_profile.empty()) info.mig_profile = profile_by_attributes(parent, attrs);
  info.mig_sm_share = share(attrs.multiprocessor_count, parent.sm_count);
  info.mig_memory_share =
      share(static_cast<double>(attrs.memory_size_mb), static_cast<double>(parent.memory_mib));
  info.dram_peak_bytes_per_s = parent_info.dram_peak_bytes_per_s * info.mig_memory_share;
  return info;
}

}  // namespace

auto mig_profile_from_name(std::string_view name) -> std::string {
  const std::size_t at = name.rfind(kMigWord);
  if (at == std::string_view::npos) return {};
  std::string_view profile = name.substr(at + kMigWord.size());
  // "1c.3g.40gb": a compute-instance prefix before the GPU-instance profile (dcgm-exporter's GPU_I_PROFILE).
  if (const std::size_t dot = profile.find('.');
      dot != std::string_view::npos && dot > 0 && profile[dot - 1] == 'c' && profile.find('g') > dot) {
    profile.remove_prefix(dot + 1);
  }
  return std::string(profile);
}

auto architecture_name(nvml::Architecture arch) -> std::string_view {
  switch (arch) {
    case nvml::kArchVolta:
      return "Volta";
    case nvml::kArchTuring:
      return "Turing";
    case nvml::kArchAmpere:
      return "Ampere";
    case nvml::kArchAda:
      return "Ada";
    case nvml::kArchHopper:
      return "Hopper";
    case nvml::kArchBlackwell:
      return "Blackwell";
    default:
      return "this GPU's";
  }
}

auto mig_parent_figures(const NvmlApi& api, nvml::Device parent) -> MigParentFigures {
  MigParentFigures out;
  if (api.device_get_gpu_instance_profile_info_v == nullptr) return out;
  for (unsigned int profile = 0; profile < nvml::kGpuInstanceProfileCount; ++profile) {
    nvml::GpuInstanceProfileInfoV2 info{};
    info.version = nvml::kGpuInstanceProfileInfoV2Version;
    const nvml::Return rc = api.device_get_gpu_instance_profile_info_v(parent, profile, &info);
    if (rc == nvml::kErrorInvalidArgument) break;  // past this driver's last profile (nvml.h)
    if (rc != nvml::kSuccess) continue;            // NOT_SUPPORTED: a profile this GPU lacks
    out.sm_count = std::max(out.sm_count, info.multiprocessor_count);
    out.memory_mib = std::max(out.memory_mib, info.memory_size_mb);
    out.profiles.push_back(info);
  }
  return out;
}

auto enumerate_mig_devices(const NvmlApi& api, nvml::Device parent, const core::DeviceInfo& parent_info,
                           std::uint32_t first_index) -> MigLayout {
  MigLayout layout;
  if (const std::string_view missing = api.missing_mig_function(); !missing.empty()) {
    layout.note = "MIG instances not listed: this driver's NVML lacks " + std::string(missing) +
                  " (update the NVIDIA driver); the GPU is sampled whole";
    return layout;
  }
  unsigned int max_count = 0;
  if (const nvml::Return rc = api.device_get_max_mig_device_count(parent, &max_count); rc != nvml::kSuccess) {
    layout.lost = rc == nvml::kErrorGpuIsLost;
    layout.note =
        "MIG instances not listed: nvmlDeviceGetMaxMigDeviceCount failed: " + nvml_error_text(api, rc);
    return layout;
  }
  const MigParentFigures figures = mig_parent_figures(api, parent);
  for (unsigned int i = 0; i < max_count && !layout.lost; ++i) {
    nvml::Device mig = nullptr;
    const nvml::Return rc = api.device_get_mig_device_handle_by_index(parent, i, &mig);
    layout.lost = rc == nvml::kErrorGpuIsLost;
    if (rc != nvml::kSuccess) continue;  // NOT_FOUND: no MIG device at this index
    auto info = describe(api, mig, parent_info, figures, layout.lost);
    if (!info) continue;
    info->index = first_index + static_cast<std::uint32_t>(layout.devices.size());
    layout.devices.push_back({.handle = mig, .info = std::move(*info)});
  }
  if (layout.lost) {
    layout.devices.clear();
    layout.note = "MIG instances not listed: the GPU is lost";
  } else if (layout.devices.empty()) {
    layout.note = "MIG is on but the GPU has no MIG instance (create them: sudo nvidia-smi mig -i " +
                  std::to_string(parent_info.index) + " -cgi <profiles> -C)";
  }
  return layout;
}

}  // namespace solscope::nvidia
