// CudaLaunchApi: the CUDA driver functions `solscope check` needs to JIT, launch and time its calibration
// kernels (libcuda.so.1, dlopen'ed), as a table of plain function pointers that tests fill with fakes. It
// extends CudaApi (device matching by PCI bus id) with contexts, modules, memory, launches and events.
//
// Vendor-seam header (includes the toolkit's cuda.h): for the check runner's .cpp files and tests only.
// Symbols are resolved by the exact names cuda.h (CUDA 13.0) maps its API names to, so that each pointer has
// the signature of the header's prototype: cuCtxCreate -> cuCtxCreate_v4, cuCtxDestroy -> cuCtxDestroy_v2,
// cuMemAlloc -> cuMemAlloc_v2, cuMemFree -> cuMemFree_v2, cuEventDestroy -> cuEventDestroy_v2,
// cuEventElapsedTime -> cuEventElapsedTime_v2 (CUDA 12.8; older drivers: cuEventElapsedTime, the same
// signature), cuDeviceGetUuid -> cuDeviceGetUuid_v2. The legacy default stream is used, so cuLaunchKernel and
// cuEventRecord are the unsuffixed (not _ptsz) entry points.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <span>
#include <string>

#include "core/result.hpp"
#include "sources/nvidia/cuda_api.hpp"

namespace solscope::nvidia {

/// Driver functions of the check runner beyond CudaApi. All are required.
struct CudaLaunchFns {
  decltype(&::cuGetErrorName) cu_get_error_name = nullptr;
  decltype(&::cuDeviceGetUuid) cu_device_get_uuid = nullptr;  ///< cuDeviceGetUuid_v2
  decltype(&::cuCtxCreate) cu_ctx_create = nullptr;           ///< cuCtxCreate_v4 (CUDA 12.5)
  decltype(&::cuCtxDestroy) cu_ctx_destroy = nullptr;         ///< cuCtxDestroy_v2
  decltype(&::cuCtxSetCurrent) cu_ctx_set_current = nullptr;
  decltype(&::cuCtxSynchronize) cu_ctx_synchronize = nullptr;
  decltype(&::cuModuleLoadDataEx) cu_module_load_data_ex = nullptr;
  decltype(&::cuModuleUnload) cu_module_unload = nullptr;
  decltype(&::cuModuleGetFunction) cu_module_get_function = nullptr;
  decltype(&::cuFuncGetAttribute) cu_func_get_attribute = nullptr;
  decltype(&::cuMemAlloc) cu_mem_alloc = nullptr;  ///< cuMemAlloc_v2
  decltype(&::cuMemFree) cu_mem_free = nullptr;    ///< cuMemFree_v2
  decltype(&::cuLaunchKernel) cu_launch_kernel = nullptr;
  decltype(&::cuEventCreate) cu_event_create = nullptr;
  decltype(&::cuEventRecord) cu_event_record = nullptr;
  decltype(&::cuEventQuery) cu_event_query = nullptr;
  decltype(&::cuEventSynchronize) cu_event_synchronize = nullptr;
  decltype(&::cuEventElapsedTime) cu_event_elapsed_time = nullptr;  ///< cuEventElapsedTime_v2 or v1
  decltype(&::cuEventDestroy) cu_event_destroy = nullptr;           ///< cuEventDestroy_v2
};

/// The check runner's table: CudaApi's device functions plus CudaLaunchFns. Plain data; copies share the
/// library (CudaApi::library).
struct CudaLaunchApi : CudaApi, CudaLaunchFns {};

/// Loads the first of `candidates` (default: the driver's soname "libcuda.so.1", searched by the dynamic
/// loader) and resolves the whole table. Calls nothing. Errors: Unavailable "no NVIDIA driver: ..." when no
/// candidate loads (driver not installed, or a container started without the NVIDIA runtime); Unavailable
/// "the NVIDIA driver is too old ..." naming the first missing symbol (cuCtxCreate_v4 needs a CUDA 12.5
/// driver).
[[nodiscard]] auto load_cuda_launch(std::span<const std::string> candidates = {})
    -> core::Result<CudaLaunchApi>;

/// "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered" from cuGetErrorName and
/// cuGetErrorString; the parts the driver does not know are left out ("CUDA error 12345").
[[nodiscard]] auto cuda_error_text(const CudaLaunchApi& api, CUresult result) -> std::string;

/// How the check runner treats a failed driver call (cuda.h's descriptions of each code).
enum class CudaFailure : std::uint8_t {
  Fault,  ///< a kernel fault; the context is unusable (ILLEGAL_ADDRESS, LAUNCH_FAILED, the other sticky ones)
  Lost,   ///< the GPU or the driver is gone (NO_DEVICE, DEVICE_UNAVAILABLE, DEINITIALIZED, UNKNOWN, ...)
  Resources,  ///< the launch or allocation asks for more than the GPU has (LAUNCH_OUT_OF_RESOURCES,
              ///< OUT_OF_MEMORY)
  Other,      ///< anything else: a bug in the caller or an unexpected driver answer
};

/// The class of `result` (never CUDA_SUCCESS).
[[nodiscard]] auto classify_cuda_failure(CUresult result) -> CudaFailure;

}  // namespace solscope::nvidia
