// The GPU vendor glue for a build without a GPU source (no CUDA headers at build time; see gpu_backend.hpp;
// CMake picks this file). Every function says so; traces still replay.
#include "runtime/gpu_backend.hpp"

namespace solscope::app {
namespace {

constexpr const char* kNoGpuSource = "this solscope was built without the NVIDIA source";

}  // namespace

auto start_gpu_source(const sources::SourceConfig& /*config*/)
    -> core::Result<std::unique_ptr<sources::CounterSource>> {
  return core::fail(core::ErrorCode::Unimplemented, kNoGpuSource,
                    "rebuild with the CUDA toolkit headers (CUDA >= 12.6) installed, or use --replay FILE");
}

auto probe_gpus(const GpuProbeSeam& /*seam*/) -> core::Result<GpuProbe> {
  return core::fail(core::ErrorCode::Unimplemented, kNoGpuSource,
                    "rebuild with the CUDA toolkit headers (CUDA >= 12.6) installed");
}

auto make_nvml_pid_lister() -> std::function<core::Result<std::vector<std::int32_t>>(std::uint32_t device)> {
  return [](std::uint32_t) -> core::Result<std::vector<std::int32_t>> {
    return core::fail(core::ErrorCode::Unimplemented, kNoGpuSource);
  };
}

auto detect_gpu_name(const std::vector<std::uint32_t>& /*devices*/) -> core::Result<std::string> {
  return core::fail(core::ErrorCode::Unavailable, kNoGpuSource,
                    "pass --gpu NAME, or rebuild with the CUDA toolkit headers (CUDA >= 12.6) installed");
}

auto make_kernel_runner(const core::DeviceInfo& /*gpu*/)
    -> core::Result<std::unique_ptr<check::KernelRunner>> {
  return core::fail(
      core::ErrorCode::Unimplemented, kNoGpuSource,
      "rebuild with the CUDA toolkit headers (CUDA >= 12.6) installed; without them no kernel can be "
      "launched");
}

}  // namespace solscope::app
