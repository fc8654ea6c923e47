#include "sources/nvidia/cuda_api.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "core/text.hpp"
#include "sources/nvidia/dynamic_library.hpp"

namespace solscope::nvidia {
namespace {

constexpr std::string_view kDriverHint =
    "install the NVIDIA driver (it provides libcuda.so.1), or start the container with the NVIDIA runtime "
    "(--gpus all); NVML-only figures need the driver too";

}  // namespace

auto resolve_cuda_api(const DynamicLibrary& lib, CudaApi& api) -> bool {
  // Resolve every symbol (no short-circuit) so that a partial table never escapes.
  bool all = lib.resolve(api.cu_init, "cuInit");
  all = lib.resolve(api.cu_device_get_count, "cuDeviceGetCount") && all;
  all = lib.resolve(api.cu_device_get, "cuDeviceGet") && all;
  all = lib.resolve(api.cu_device_get_pci_bus_id, "cuDeviceGetPCIBusId") && all;
  all = lib.resolve(api.cu_device_get_attribute, "cuDeviceGetAttribute") && all;
  all = lib.resolve(api.cu_get_error_string, "cuGetErrorString") && all;
  return all;
}

auto load_cuda(std::span<const std::string> candidates) -> core::Result<CudaApi> {
  const std::array<std::string, 1> soname{"libcuda.so.1"};
  if (candidates.empty()) candidates = soname;
  auto lib = DynamicLibrary::open_first(candidates, kDriverHint);
  if (!lib) {
    return core::fail(core::ErrorCode::Unavailable, "no NVIDIA driver: " + lib.error().message,
                      std::string(kDriverHint));
  }
  CudaApi api;
  if (!resolve_cuda_api(*lib, api)) {
    return core::fail(core::ErrorCode::Unavailable,
                      "no usable NVIDIA driver: " + lib->path() + " lacks a CUDA driver function",
                      "reinstall the NVIDIA driver");
  }
  api.library = std::make_shared<DynamicLibrary>(std::move(*lib));
  return api;
}

auto cuda_result_name(const CudaApi& api, CUresult result) -> std::string {
  const char* text = nullptr;
  const std::string number = std::to_string(static_cast<int>(result));
  if (api.cu_get_error_string != nullptr && api.cu_get_error_string(result, &text) == CUDA_SUCCESS &&
      text != nullptr) {
    return std::string(text) + " (" + number + ")";
  }
  return "CUDA error " + number;
}

auto normalize_pci_bus_id(std::string_view bus_id) -> std::string {
  std::string id = core::to_lower_ascii(bus_id);
  const auto last_colon = id.rfind(':');
  const auto dot = id.rfind('.');
  if (last_colon == std::string::npos || dot == std::string::npos || dot < last_colon) return id;
  const auto first_colon = id.find(':');
  if (first_colon == last_colon) return "0000:" + id;  // "bus:device.function"
  std::string domain = id.substr(0, first_colon);
  while (domain.size() > 4 && domain.front() == '0') domain.erase(0, 1);
  while (domain.size() < 4) domain.insert(0, 1, '0');
  return domain + id.substr(first_colon);
}

auto cuda_ordinal_of(const CudaApi& api, std::string_view pci_bus_id) -> core::Result<int> {
  int count = 0;
  if (CUresult rc = api.cu_device_get_count(&count); rc != CUDA_SUCCESS) {
    return core::fail(core::ErrorCode::Unavailable, "cuDeviceGetCount failed: " + cuda_result_name(api, rc),
                      "check that the NVIDIA driver is loaded (nvidia-smi)");
  }
  const std::string wanted = normalize_pci_bus_id(pci_bus_id);
  std::string seen;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CUdevice device = 0;
    std::array<char, 32> buffer{};
    if (CUresult rc = api.cu_device_get(&device, ordinal); rc != CUDA_SUCCESS) {
      return core::fail(core::ErrorCode::Unavailable,
                        "cuDeviceGet(" + std::to_string(ordinal) + ") failed: " + cuda_result_name(api, rc));
    }
    if (CUresult rc = api.cu_device_get_pci_bus_id(buffer.data(), static_cast<int>(buffer.size()), device);
        rc != CUDA_SUCCESS) {
      return core::fail(core::ErrorCode::Unavailable, "cuDeviceGetPCIBusId(" + std::to_string(ordinal) +
                                                          ") failed: " + cuda_result_name(api, rc));
    }
    buffer.back() = '\0';
    const std::string found = normalize_pci_bus_id(buffer.data());
    if (found == wanted) return ordinal;
    seen += (seen.empty() ? "" : ", ") + found;
  }
  return core::fail(core::ErrorCode::NotFound,
                    "no CUDA device has PCI bus id " + std::string(pci_bus_id) + " (CUDA sees " +
                        std::to_string(count) + " device(s)" + (seen.empty() ? "" : ": " + seen) + ")",
                    "unset CUDA_VISIBLE_DEVICES or include this GPU in it");
}

}  // namespace solscope::nvidia
