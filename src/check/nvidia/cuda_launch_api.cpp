#include "check/nvidia/detail/cuda_launch_api.hpp"

#include <memory>
#include <utility>

#include "sources/nvidia/dynamic_library.hpp"

namespace solscope::nvidia {
namespace {

// Resolves one symbol; remembers the first that is missing.
template <class Fn>
void resolve(const DynamicLibrary& lib, Fn& fn, const char* name, std::string& missing) {
  if (!lib.resolve(fn, name) && missing.empty()) missing = name;
}

auto resolve_launch_fns(const DynamicLibrary& lib, CudaLaunchFns& fns) -> std::string {
  std::string missing;
  resolve(lib, fns.cu_get_error_name, "cuGetErrorName", missing);
  resolve(lib, fns.cu_device_get_uuid, "cuDeviceGetUuid_v2", missing);
  resolve(lib, fns.cu_ctx_create, "cuCtxCreate_v4", missing);
  resolve(lib, fns.cu_ctx_destroy, "cuCtxDestroy_v2", missing);
  resolve(lib, fns.cu_ctx_set_current, "cuCtxSetCurrent", missing);
  resolve(lib, fns.cu_ctx_synchronize, "cuCtxSynchronize", missing);
  resolve(lib, fns.cu_module_load_data_ex, "cuModuleLoadDataEx", missing);
  resolve(lib, fns.cu_module_unload, "cuModuleUnload", missing);
  resolve(lib, fns.cu_module_get_function, "cuModuleGetFunction", missing);
  resolve(lib, fns.cu_func_get_attribute, "cuFuncGetAttribute", missing);
  resolve(lib, fns.cu_mem_alloc, "cuMemAlloc_v2", missing);
  resolve(lib, fns.cu_mem_free, "cuMemFree_v2", missing);
  resolve(lib, fns.cu_launch_kernel, "cuLaunchKernel", missing);
  resolve(lib, fns.cu_event_create, "cuEventCreate", missing);
  resolve(lib, fns.cu_event_record, "cuEventRecord", missing);
  resolve(lib, fns.cu_event_query, "cuEventQuery", missing);
  resolve(lib, fns.cu_event_synchronize, "cuEventSynchronize", missing);
  // cuEventElapsedTime_v2 arrived with CUDA 12.8; the v1 entry point has the same signature and meaning.
  if (!lib.resolve(fns.cu_event_elapsed_time, "cuEventElapsedTime_v2")) {
    resolve(lib, fns.cu_event_elapsed_time, "cuEventElapsedTime", missing);
  }
  resolve(lib, fns.cu_event_destroy, "cuEventDestroy_v2", missing);
  return missing;
}

}  // namespace

auto load_cuda_launch(std::span<const std::string> candidates) -> core::Result<CudaLaunchApi> {
  auto base = load_cuda(candidates);
  if (!base) return core::propagate(std::move(base));
  CudaLaunchApi api;
  static_cast<CudaApi&>(api) = std::move(*base);
  // load_cuda keeps its DynamicLibrary in `library` (a shared_ptr<void> so that the table hides the type).
  const auto& lib = *std::static_pointer_cast<const DynamicLibrary>(api.library);
  if (std::string missing = resolve_launch_fns(lib, api); !missing.empty()) {
    return core::fail(
        core::ErrorCode::Unavailable,
        "the NVIDIA driver is too old for solscope check: " + lib.path() + " lacks " + missing,
        "install a driver for CUDA 12.5 or newer (nvidia-smi shows the CUDA version it supports)");
  }
  return api;
}

auto cuda_error_text(const CudaLaunchApi& api, CUresult result) -> std::string {
  const char* name = nullptr;
  const char* text = nullptr;
  const std::string number = std::to_string(static_cast<int>(result));
  const bool has_name = api.cu_get_error_name != nullptr &&
                        api.cu_get_error_name(result, &name) == CUDA_SUCCESS && name != nullptr;
  const bool has_text = api.cu_get_error_string != nullptr &&
                        api.cu_get_error_string(result, &text) == CUDA_SUCCESS && text != nullptr;
  std::string out = has_name ? std::string(name) + " (" + number + ")" : "CUDA error " + number;
  if (has_text) out += std::string(": ") + text;
  return out;
}

auto classify_cuda_failure(CUresult result) -> CudaFailure {
  switch (result) {
    // cuda.h: "This leaves the process in an inconsistent state and any further CUDA work will return the
    // same error" (the sticky errors), plus the device-side assert and the uncorrectable ECC error of a
    // kernel.
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTAINED:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK:
    case CUDA_ERROR_EXTERNAL_DEVICE:
      return CudaFailure::Fault;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_DEINITIALIZED:
    case CUDA_ERROR_STUB_LIBRARY:
    case CUDA_ERROR_SYSTEM_NOT_READY:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_NVLINK_UNCORRECTABLE:
    case CUDA_ERROR_MPS_CLIENT_TERMINATED:
    case CUDA_ERROR_UNKNOWN:
      return CudaFailure::Lost;
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    case CUDA_ERROR_OUT_OF_MEMORY:
    case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
      return CudaFailure::Resources;
    default:
      return CudaFailure::Other;
  }
}

}  // namespace solscope::nvidia
