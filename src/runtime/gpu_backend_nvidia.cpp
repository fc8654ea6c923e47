// The GPU vendor glue for a build with the NVIDIA source (see gpu_backend.hpp; CMake picks this file).
#include <memory>
#include <optional>
#include <utility>

#include "check/nvidia/cuda_kernel_runner.hpp"
#include "runtime/environment.hpp"
#include "runtime/gpu_backend.hpp"
#include "sources/nvidia/nvidia_source.hpp"
#include "sources/nvidia/nvml_api.hpp"
#include "sources/nvidia/nvml_reader.hpp"
#include "sources/nvidia/pm_sampler.hpp"

namespace solscope::app {
namespace {

auto source_text(const nvidia::NvidiaDeviceProbe& d) -> std::string {
  if (d.pm_sampling_would_try) return "PM sampling (CUPTI): every pipe and path";
  if (d.mig_device_count > 0) {
    return "MIG on: sampled as its " + std::to_string(d.mig_device_count) + " MIG instance(s) below";
  }
  const bool mig = d.info.is_mig();
  switch (d.status.source) {
    case core::SourceKind::Gpm:
      return mig ? "NVML GPM of the GPU instance (nvmlGpmMigSampleGet): tensor/FP pipes, DRAM, SM activity"
                 : "NVML GPM: tensor/FP pipes, DRAM, SM activity (coarser than PM sampling)";
    case core::SourceKind::NvmlOnly:
      return mig ? "NVML only: the instance's memory and processes, the GPU's clocks, power, temperature; "
                   "SOL n/a"
                 : "NVML only: classic utilization, clocks, power; SOL n/a";
    default:
      return std::string(core::to_string(d.status.source));
  }
}

auto source_id(const nvidia::NvidiaDeviceProbe& d) -> std::string {
  if (d.pm_sampling_would_try) return "pm_sampling";
  if (d.mig_device_count > 0) return "mig";
  return std::string(core::to_string(d.status.source));
}

auto nvidia_deps() -> nvidia::NvidiaSourceDeps {
  nvidia::NvidiaSourceDeps deps;
  deps.make_pm_sampling = [] {
    return nvidia::make_pm_sampler({.cupti_search = config::cupti_search_from_environment()});
  };
  return deps;
}

}  // namespace

auto start_gpu_source(const sources::SourceConfig& config)
    -> core::Result<std::unique_ptr<sources::CounterSource>> {
  auto source = std::make_unique<nvidia::NvidiaSource>(nvidia_deps());
  if (auto started = source->start(config); !started) return core::propagate(std::move(started));
  return std::unique_ptr<sources::CounterSource>(std::move(source));
}

auto probe_gpus(const GpuProbeSeam& seam) -> core::Result<GpuProbe> {
  nvidia::NvidiaSourceDeps deps = nvidia_deps();
  if (seam.library_symbol) {
    deps.load_nvml = [lookup = seam.library_symbol] { return nvidia::resolve_nvml(lookup); };
  }
  deps.procfs_root = seam.procfs_root;
  const nvidia::NvidiaSource source(std::move(deps));
  auto probe = source.probe();
  if (!probe) return core::propagate(std::move(probe));
  GpuProbe out{.vendor = "NVIDIA",
               .driver_version = probe->driver_version,
               .profiling_allowed = std::string(to_string(probe->permission.allowed)),
               .profiling_reason = probe->permission.reason,
               .profiling_fix = probe->permission.fix,
               .devices = {}};
  for (const auto& d : probe->devices) {
    out.devices.push_back(GpuProbeDevice{.info = d.info,
                                         .status = d.status,
                                         .source_id = source_id(d),
                                         .source_text = source_text(d),
                                         .gpm_supported = d.gpm.supported,
                                         .gpm_reason = d.gpm.reason,
                                         .mig_enabled = d.mig_enabled,
                                         .mig_instances = d.mig_device_count,
                                         .mig_note = d.mig_note});
  }
  return out;
}

auto make_nvml_pid_lister() -> std::function<core::Result<std::vector<std::int32_t>>(std::uint32_t device)> {
  auto reader = std::make_shared<std::optional<nvidia::NvmlReader>>();
  return [reader](std::uint32_t device) -> core::Result<std::vector<std::int32_t>> {
    if (!reader->has_value()) {
      auto api = nvidia::load_nvml();
      if (!api) return core::propagate(std::move(api));
      auto opened = nvidia::NvmlReader::open(std::move(*api));
      if (!opened) return core::propagate(std::move(opened));
      reader->emplace(std::move(*opened));
    }
    nvidia::NvmlReader& nvml = **reader;
    if (device >= nvml.all_device_count()) {  // whole GPUs, then MIG instances (NvidiaSource's numbering)
      return core::fail(core::ErrorCode::InvalidArgument, "GPU " + std::to_string(device) + " does not exist",
                        "NVML lists " + std::to_string(nvml.device_count()) + " GPU(s) and " +
                            std::to_string(nvml.all_device_count() - nvml.device_count()) +
                            " MIG instance(s)");
    }
    auto processes = nvml.processes(device);
    if (!processes) return core::propagate(std::move(processes));
    std::vector<std::int32_t> pids;
    pids.reserve(processes->size());
    for (const auto& p : *processes) pids.push_back(static_cast<std::int32_t>(p.pid));
    return pids;
  };
}

auto detect_gpu_name(const std::vector<std::uint32_t>& devices) -> core::Result<std::string> {
  const nvidia::NvidiaSource source;
  auto probe = source.probe();
  if (!probe) return core::propagate(std::move(probe));
  const std::uint32_t wanted = devices.empty() ? 0 : devices.front();
  for (const auto& d : probe->devices) {
    if (d.info.index == wanted && !d.info.name.empty()) return d.info.name;
  }
  return core::fail(core::ErrorCode::NotFound,
                    "GPU " + std::to_string(wanted) + " not found (" + std::to_string(probe->devices.size()) +
                        " GPU(s) here)",
                    "pick one with --devices, or pass --gpu NAME");
}

auto make_kernel_runner(const core::DeviceInfo& gpu) -> core::Result<std::unique_ptr<check::KernelRunner>> {
  auto runner = nvidia::open_cuda_kernel_runner(
      {.nvml_index = gpu.index, .pci_bus_id = gpu.pci_bus_id, .chip = gpu.chip});
  if (!runner) return core::propagate(std::move(runner));
  return std::unique_ptr<check::KernelRunner>(std::move(*runner));
}

}  // namespace solscope::app
