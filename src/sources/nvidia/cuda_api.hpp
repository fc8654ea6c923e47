// CudaApi: the few CUDA driver functions the PM sampler needs (libcuda.so.1, dlopen'ed), as a table of plain
// function pointers that tests fill with fakes, plus the NVML-to-CUDA device matching by PCI bus id.
//
// Like cupti_api.hpp this is a vendor-seam header (it includes the toolkit's cuda.h) for the sampler's .cpp
// files and tests only. Source: docs/design/cupti-pm-sampling.md sections 1.2 and 7 (device numbering).
#pragma once

#include <cuda.h>

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace solscope::nvidia {

/// Driver functions resolved from libcuda.so.1. All are required.
struct CudaApi {
  decltype(&::cuInit) cu_init = nullptr;
  decltype(&::cuDeviceGetCount) cu_device_get_count = nullptr;
  decltype(&::cuDeviceGet) cu_device_get = nullptr;
  decltype(&::cuDeviceGetPCIBusId) cu_device_get_pci_bus_id = nullptr;
  decltype(&::cuDeviceGetAttribute) cu_device_get_attribute = nullptr;
  decltype(&::cuGetErrorString) cu_get_error_string = nullptr;
  std::shared_ptr<void> library;  ///< keeps libcuda open; null for fakes
};

class DynamicLibrary;

/// Resolves every CudaApi symbol from an open libcuda (all of them, so the caller can report the library);
/// false when one is missing. Does not set `library`.
[[nodiscard]] auto resolve_cuda_api(const DynamicLibrary& lib, CudaApi& api) -> bool;

/// Loads the first of `candidates` (default: libcuda.so.1, the driver's soname, searched by the dynamic
/// loader) and resolves the table. Calls nothing. Errors: Unavailable "no NVIDIA driver" when the library is
/// missing or lacks a symbol (the driver is not installed, or the container was started without the NVIDIA
/// runtime).
[[nodiscard]] auto load_cuda(std::span<const std::string> candidates = {}) -> core::Result<CudaApi>;

/// "CUDA_ERROR_NO_DEVICE (100)" from cuGetErrorString, or the number alone.
[[nodiscard]] auto cuda_result_name(const CudaApi& api, CUresult result) -> std::string;

/// A PCI bus id in one canonical form, "dddd:bb:dd.f" in lowercase with a 4-digit domain, so that NVML's
/// "00000000:17:00.0" and CUDA's "0000:17:00.0" compare equal. Leading zeros of the domain beyond four digits
/// are dropped; an id without a domain gets "0000:". Input that is not of the form
/// "[domain:]bus:device.function" is returned lowercased.
[[nodiscard]] auto normalize_pci_bus_id(std::string_view bus_id) -> std::string;

/// The CUDA ordinal (as used by cuDeviceGet and CUPTI's deviceIndex) of the device with this PCI bus id,
/// matched after normalize_pci_bus_id(). Requires a successful cuInit. Ordering by CUDA_DEVICE_ORDER does not
/// matter since the match is by bus id. Errors: NotFound (no CUDA device has this bus id: hidden by
/// CUDA_VISIBLE_DEVICES, or not an NVIDIA device), Unavailable (cuDeviceGetCount or cuDeviceGetPCIBusId
/// failed).
[[nodiscard]] auto cuda_ordinal_of(const CudaApi& api, std::string_view pci_bus_id) -> core::Result<int>;

}  // namespace solscope::nvidia
