// The app's GPU vendor glue: everything the commands need from the vendor's source beyond the CounterSource
// interface (opening it, probing the GPUs for `solscope devices`, the PIDs on a GPU, the GPU's name). CMake
// compiles exactly one implementation: gpu_backend_nvidia.cpp when the NVIDIA source is built (CUDA headers
// found), gpu_backend_none.cpp otherwise. No other file of the app names a vendor source.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "check/kernel_runner.hpp"
#include "core/device_info.hpp"
#include "core/result.hpp"
#include "sources/counter_source.hpp"

namespace solscope::app {

/// One GPU, or one MIG instance of a GPU (info.is_mig(): the MIG fields of core::DeviceInfo are set), as
/// `solscope devices` shows it, found without sampling.
struct GpuProbeDevice {
  core::DeviceInfo info;
  sources::DeviceStatus status;  ///< the source start would try first; reason/hint for what it would skip
  std::string source_id;         ///< for JSON: "pm_sampling", "gpm", "nvml", "mig" (a split GPU), ...
  std::string source_text;       ///< for people: "PM sampling (CUPTI): every pipe and path"
  bool gpm_supported = false;
  std::string gpm_reason;  ///< why GPM is not supported ("" when it is or when unknown)
  bool mig_enabled = false;
  /// A MIG-enabled GPU: how many MIG instances follow it in GpuProbe::devices (sampled instead of the GPU),
  /// and why there are none ("" when there are, or MIG is off).
  std::uint32_t mig_instances = 0;
  std::string mig_note;
};

/// The driver, the counter permission and every GPU, as the vendor's probe found them.
struct GpuProbe {
  std::string vendor;             ///< "NVIDIA"
  std::string driver_version;     ///< "565.57.01"
  std::string profiling_allowed;  ///< the permission verdict: "yes", "no", "unknown"
  std::string profiling_reason;   ///< why
  std::string profiling_fix;      ///< how to allow ("" when allowed)
  std::vector<GpuProbeDevice>
      devices;  ///< GPUs in vendor order, each MIG-enabled one followed by its instances
};

/// Where probe_gpus() finds the vendor library and the permission files; defaults are this machine's. Tests
/// point them at a synthetic driver.
struct GpuProbeSeam {
  /// Resolves the vendor management library's symbols (NVIDIA: libnvidia-ml's, like dlsym); null: load the
  /// installed library.
  std::function<void*(const char* symbol)> library_symbol;
  std::string procfs_root = "/";  ///< root of the procfs tree the permission pre-flight reads
};

/// Opens and starts the vendor's source (NVIDIA: PM sampling, GPM or NVML per GPU). Errors: the source's
/// start() errors; Unimplemented when this build has no GPU source (no CUDA headers at build time).
[[nodiscard]] auto start_gpu_source(const sources::SourceConfig& config)
    -> core::Result<std::unique_ptr<sources::CounterSource>>;

/// Driver, permission pre-flight and every GPU with the source that would be used, without sampling.
/// Errors: Unavailable "no NVIDIA driver found" and the other NVML errors; Unimplemented without a GPU
/// source in this build.
[[nodiscard]] auto probe_gpus(const GpuProbeSeam& seam = {}) -> core::Result<GpuProbe>;

/// A function listing the PIDs with a compute context on one GPU (NVML index), over its own NVML session
/// (opened on the first call, so from the thread that calls it: NvidiaSource is not thread-safe, and NVML
/// itself is). Not thread-safe: one thread calls it. Errors: the NVML loader's and NvmlReader's (Unavailable
/// without a driver, InvalidArgument for an index NVML does not have); Unimplemented in a build without the
/// NVIDIA source.
[[nodiscard]] auto make_nvml_pid_lister()
    -> std::function<core::Result<std::vector<std::int32_t>>(std::uint32_t device)>;

/// The NVML name of the GPU to model for `solscope ceiling --gpu auto` (e.g. "NVIDIA H100 80GB HBM3"): the
/// first of `devices` (a --devices list), or GPU 0 when empty. Probes NVML without sampling. Errors:
/// Unavailable "no NVIDIA driver found" (and NvidiaSource::probe()'s other errors), NotFound for an index
/// this machine lacks, Unavailable in a build without the NVIDIA source.
[[nodiscard]] auto detect_gpu_name(const std::vector<std::uint32_t>& devices) -> core::Result<std::string>;

/// A runner of `solscope check`'s calibration kernels on `gpu`, a device of probe_gpus() (NVIDIA: the CUDA
/// driver API over libcuda.so.1, the CUDA device matched by gpu.pci_bus_id). gpu.chip (CUPTI's name, e.g.
/// "GH100"; "" when unknown) becomes DeviceFacts::chip. Errors: Unavailable "no NVIDIA driver ..." (exit 3),
/// NotFound for a GPU CUDA does not see (CUDA_VISIBLE_DEVICES), the driver's errors of cuInit/cuCtxCreate;
/// Unimplemented in a build without the NVIDIA source.
[[nodiscard]] auto make_kernel_runner(const core::DeviceInfo& gpu)
    -> core::Result<std::unique_ptr<check::KernelRunner>>;

}  // namespace solscope::app
