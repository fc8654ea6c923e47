#include "sources/nvidia/nvml_api.hpp"

#include <array>
#include <initializer_list>
#include <string_view>
#include <utility>

namespace solscope::nvidia {
namespace {

constexpr std::string_view kDriverHint =
    "install the NVIDIA driver (nvidia-smi must work); in a container, run it with the NVIDIA container "
    "toolkit "
    "(docker run --gpus all, or the nvidia runtime)";

// Resolves the first of `names` that `lookup` finds into `fn`; the name found, or "" when none.
template <class Fn>
auto resolve_first(const SymbolLookup& lookup, Fn& fn, std::initializer_list<const char*> names)
    -> std::string_view {
  for (const char* name : names) {
    if (void* sym = lookup(name)) {
      fn = reinterpret_cast<Fn>(sym);
      return name;
    }
  }
  fn = nullptr;
  return {};
}

auto missing(std::string_view symbol) -> core::Unexpected<core::Error> {
  return core::fail(core::ErrorCode::NotFound, "libnvidia-ml lacks " + std::string(symbol),
                    "the NVIDIA driver is too old or damaged: update or reinstall it");
}

auto resolve_required(const SymbolLookup& lookup, NvmlApi& api) -> core::Result<void> {
  if (resolve_first(lookup, api.init, {"nvmlInit_v2", "nvmlInit"}).empty()) return missing("nvmlInit_v2");
  if (resolve_first(lookup, api.shutdown, {"nvmlShutdown"}).empty()) return missing("nvmlShutdown");
  if (resolve_first(lookup, api.error_string, {"nvmlErrorString"}).empty()) return missing("nvmlErrorString");
  if (resolve_first(lookup, api.system_get_driver_version, {"nvmlSystemGetDriverVersion"}).empty()) {
    return missing("nvmlSystemGetDriverVersion");
  }
  if (resolve_first(lookup, api.device_get_count, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"}).empty()) {
    return missing("nvmlDeviceGetCount_v2");
  }
  if (resolve_first(lookup, api.device_get_handle_by_index,
                    {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"})
          .empty()) {
    return missing("nvmlDeviceGetHandleByIndex_v2");
  }
  if (resolve_first(lookup, api.device_get_name, {"nvmlDeviceGetName"}).empty())
    return missing("nvmlDeviceGetName");
  if (resolve_first(lookup, api.device_get_uuid, {"nvmlDeviceGetUUID"}).empty())
    return missing("nvmlDeviceGetUUID");
  const auto pci =
      resolve_first(lookup, api.device_get_pci_info,
                    {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo"});
  if (pci.empty()) return missing("nvmlDeviceGetPciInfo_v3");
  api.pci_info_legacy = pci == "nvmlDeviceGetPciInfo";
  return core::ok();
}

void resolve_optional(const SymbolLookup& lookup, NvmlApi& api) {
  resolve_first(lookup, api.device_get_utilization_rates, {"nvmlDeviceGetUtilizationRates"});
  resolve_first(lookup, api.device_get_clock_info, {"nvmlDeviceGetClockInfo"});
  resolve_first(lookup, api.device_get_max_clock_info, {"nvmlDeviceGetMaxClockInfo"});
  resolve_first(lookup, api.device_get_power_usage, {"nvmlDeviceGetPowerUsage"});
  resolve_first(lookup, api.device_get_enforced_power_limit, {"nvmlDeviceGetEnforcedPowerLimit"});
  resolve_first(lookup, api.device_get_temperature_v, {"nvmlDeviceGetTemperatureV"});
  resolve_first(lookup, api.device_get_temperature, {"nvmlDeviceGetTemperature"});
  resolve_first(lookup, api.device_get_memory_info_v2, {"nvmlDeviceGetMemoryInfo_v2"});
  resolve_first(lookup, api.device_get_memory_info, {"nvmlDeviceGetMemoryInfo"});
  resolve_first(lookup, api.device_get_memory_bus_width, {"nvmlDeviceGetMemoryBusWidth"});
  if (resolve_first(lookup, api.device_get_compute_running_processes,
                    {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"})
          .empty()) {
    resolve_first(lookup, api.device_get_compute_running_processes_v1,
                  {"nvmlDeviceGetComputeRunningProcesses"});
  }
  resolve_first(lookup, api.device_get_graphics_running_processes,
                {"nvmlDeviceGetGraphicsRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v2"});
  resolve_first(lookup, api.device_get_mps_compute_running_processes,
                {"nvmlDeviceGetMPSComputeRunningProcesses_v3", "nvmlDeviceGetMPSComputeRunningProcesses_v2"});
  resolve_first(lookup, api.device_get_process_utilization, {"nvmlDeviceGetProcessUtilization"});
  resolve_first(lookup, api.device_get_mig_mode, {"nvmlDeviceGetMigMode"});
  resolve_first(lookup, api.device_get_architecture, {"nvmlDeviceGetArchitecture"});
  resolve_first(lookup, api.device_get_max_mig_device_count, {"nvmlDeviceGetMaxMigDeviceCount"});
  resolve_first(lookup, api.device_get_mig_device_handle_by_index, {"nvmlDeviceGetMigDeviceHandleByIndex"});
  resolve_first(lookup, api.device_is_mig_device_handle, {"nvmlDeviceIsMigDeviceHandle"});
  resolve_first(lookup, api.device_get_device_handle_from_mig_device_handle,
                {"nvmlDeviceGetDeviceHandleFromMigDeviceHandle"});
  resolve_first(lookup, api.device_get_gpu_instance_id, {"nvmlDeviceGetGpuInstanceId"});
  resolve_first(lookup, api.device_get_compute_instance_id, {"nvmlDeviceGetComputeInstanceId"});
  resolve_first(lookup, api.device_get_attributes, {"nvmlDeviceGetAttributes_v2"});
  resolve_first(lookup, api.device_get_gpu_instance_profile_info_v, {"nvmlDeviceGetGpuInstanceProfileInfoV"});
  resolve_first(lookup, api.gpm_query_device_support, {"nvmlGpmQueryDeviceSupport"});
  resolve_first(lookup, api.gpm_sample_alloc, {"nvmlGpmSampleAlloc"});
  resolve_first(lookup, api.gpm_sample_free, {"nvmlGpmSampleFree"});
  resolve_first(lookup, api.gpm_sample_get, {"nvmlGpmSampleGet"});
  resolve_first(lookup, api.gpm_metrics_get, {"nvmlGpmMetricsGet"});
  resolve_first(lookup, api.gpm_mig_sample_get, {"nvmlGpmMigSampleGet"});
}

}  // namespace

auto NvmlOptionalFns::missing_mig_function() const -> const char* {
  if (device_get_max_mig_device_count == nullptr) return "nvmlDeviceGetMaxMigDeviceCount";
  if (device_get_mig_device_handle_by_index == nullptr) return "nvmlDeviceGetMigDeviceHandleByIndex";
  if (device_get_gpu_instance_id == nullptr) return "nvmlDeviceGetGpuInstanceId";
  if (device_get_compute_instance_id == nullptr) return "nvmlDeviceGetComputeInstanceId";
  if (device_get_attributes == nullptr) return "nvmlDeviceGetAttributes_v2";
  return "";
}

auto nvml_sonames() -> std::span<const std::string> {
  static const std::array<std::string, 2> kSonames{"libnvidia-ml.so.1", "libnvidia-ml.so"};
  return kSonames;
}

auto resolve_nvml(const SymbolLookup& lookup) -> core::Result<NvmlApi> {
  NvmlApi api;
  if (auto ok = resolve_required(lookup, api); !ok) return core::propagate(std::move(ok));
  resolve_optional(lookup, api);
  return api;
}

auto load_nvml(std::span<const std::string> sonames) -> core::Result<NvmlApi> {
  auto lib = DynamicLibrary::open_first(sonames, kDriverHint);
  if (!lib) {
    const std::string first = sonames.empty() ? std::string("libnvidia-ml.so.1") : sonames.front();
    return core::fail(core::ErrorCode::Unavailable, "no NVIDIA driver: " + first + " not found",
                      std::string(kDriverHint));
  }
  auto library = std::make_shared<const DynamicLibrary>(std::move(*lib));
  auto api = resolve_nvml([&library](const char* name) { return library->symbol(name); });
  if (!api) return api;
  api->library = std::move(library);
  return api;
}

auto nvml_error_text(const NvmlApi& api, nvml::Return rc) -> std::string {
  if (api.error_string != nullptr) {
    if (const char* text = api.error_string(rc)) return text;
  }
  return "NVML error " + std::to_string(rc);
}

}  // namespace solscope::nvidia
