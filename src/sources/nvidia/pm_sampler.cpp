#include "sources/nvidia/pm_sampler.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <utility>

#include "core/chip.hpp"
#include "sources/nvidia/cuda_api.hpp"
#include "sources/nvidia/detail/cupti_api.hpp"
#include "sources/nvidia/detail/pm_config.hpp"
#include "sources/nvidia/detail/pm_errors.hpp"
#include "sources/nvidia/detail/pm_session.hpp"

namespace solscope::nvidia {
namespace {

// CUPTI's profiler state is process-wide and not reference-counted (doc section 1.6: two owners
// de-initialising crashed a PyTorch prototype), so at most one PmSampler may hold it. This flag mirrors that
// process-wide state.
std::atomic<bool> g_profiler_owned{false};

constexpr int kMinComputeCapability = 75;  // Turing (7.5): PM sampling's floor (doc section 5)

auto default_realtime_ns() -> std::int64_t {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

auto compute_capability(const CudaApi& cuda, CUdevice device) -> int {
  int major = 0;
  int minor = 0;
  if (cuda.cu_device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) !=
          CUDA_SUCCESS ||
      cuda.cu_device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) !=
          CUDA_SUCCESS) {
    return 0;  // unknown: let CUPTI decide
  }
  return major * 10 + minor;
}

auto check_supported(const CuptiApi& api, CUdevice device, const std::string& label) -> core::Result<void> {
  CUpti_Profiler_DeviceSupported_Params p{};
  p.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
  p.cuDevice = device;
  p.api = CUPTI_PROFILER_PM_SAMPLING;
  if (CUptiResult rc = api.profiler_device_supported(&p); rc != CUPTI_SUCCESS) {
    return core::fail(pm_error(api, rc, "cuptiProfilerDeviceSupported", PmCall::Other, label));
  }
  if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return core::ok();
  const bool vgpu_disabled = p.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED;
  return core::fail(core::ErrorCode::Unimplemented,
                    "PM sampling is not supported on " + label + " (" + unsupported_reasons(p) + ")",
                    vgpu_disabled
                        ? "ask the hypervisor administrator to enable profiling for this vGPU; solscope "
                          "falls back to NVML figures meanwhile"
                        : "solscope falls back to NVML figures on this GPU");
}

auto chip_name(const CuptiApi& api, int ordinal, const std::string& label) -> core::Result<std::string> {
  CUpti_Device_GetChipName_Params p{};
  p.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
  p.deviceIndex = static_cast<std::size_t>(ordinal);
  if (CUptiResult rc = api.device_get_chip_name(&p); rc != CUPTI_SUCCESS) {
    return core::fail(pm_error(api, rc, "cuptiDeviceGetChipName", PmCall::Other, label));
  }
  if (p.pChipName == nullptr) {
    return core::fail(core::ErrorCode::Internal, "cuptiDeviceGetChipName gave no name for " + label);
  }
  return std::string(p.pChipName);
}

// The counter availability image, fetched in two calls (size, then data: doc section 1.3 f).
auto counter_availability(const CuptiApi& api, int ordinal, const std::string& label)
    -> core::Result<std::vector<std::uint8_t>> {
  CUpti_PmSampling_GetCounterAvailability_Params p{};
  p.structSize = CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE;
  p.deviceIndex = static_cast<std::size_t>(ordinal);
  if (CUptiResult rc = api.pm_get_counter_availability(&p); rc != CUPTI_SUCCESS) {
    return core::fail(pm_error(api, rc, "cuptiPmSamplingGetCounterAvailability", PmCall::Other, label));
  }
  std::vector<std::uint8_t> image(p.counterAvailabilityImageSize, 0);
  p.pCounterAvailabilityImage = image.data();
  if (CUptiResult rc = api.pm_get_counter_availability(&p); rc != CUPTI_SUCCESS) {
    return core::fail(pm_error(api, rc, "cuptiPmSamplingGetCounterAvailability", PmCall::Other, label));
  }
  return image;
}

// The settings every session of a sampler shares.
auto session_settings(const PmSamplerOptions& options, std::uint32_t max_samples) -> PmSessionSettings {
  return {.hardware_buffer_bytes = options.hardware_buffer_bytes,
          .max_samples = max_samples,
          .max_decode_failures = options.max_decode_failures};
}

}  // namespace

PmSampler::PmSampler(PmSamplerOptions options, PmSamplerDeps deps)
    : options_(std::move(options)), deps_(std::move(deps)) {
  if (!deps_.load_cupti) {
    deps_.load_cupti = [search = options_.cupti_search]() -> core::Result<std::shared_ptr<CuptiApi>> {
      auto api = load_cupti(search);
      if (!api) return core::propagate(api);
      return std::make_shared<CuptiApi>(std::move(*api));
    };
  }
  if (!deps_.load_cuda) {
    deps_.load_cuda = []() -> core::Result<std::shared_ptr<CudaApi>> {
      auto api = load_cuda();
      if (!api) return core::propagate(api);
      return std::make_shared<CudaApi>(std::move(*api));
    };
  }
  if (!deps_.realtime_ns) deps_.realtime_ns = default_realtime_ns;
}

PmSampler::~PmSampler() {
  close_all();
}

auto PmSampler::open(std::uint32_t nvml_index, std::string_view pci_bus_id, std::int64_t interval_ns)
    -> core::Result<std::string> {
  if (interval_ns <= 0) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "PM sampling interval " + std::to_string(interval_ns) + " ns for GPU " +
                          std::to_string(nvml_index) + " is not positive",
                      "use an interval of 1-100 ms");
  }
  const bool already_open = std::any_of(devices_.begin(), devices_.end(),
                                        [&](const auto& d) { return d->nvml_index == nvml_index; });
  if (already_open) {
    return core::fail(core::ErrorCode::FailedPrecondition,
                      "PM sampling already runs on GPU " + std::to_string(nvml_index));
  }
  auto device = open_device(nvml_index, pci_bus_id, interval_ns);
  if (!device) return core::propagate(device);
  std::string chip = (*device)->config.chip_name();
  devices_.push_back(std::move(*device));
  return chip;
}

auto PmSampler::ensure_driver() -> core::Result<void> {
  if (driver_ready_) return core::ok();
  if (!cuda_) {
    auto cuda = deps_.load_cuda();
    if (!cuda) return core::propagate(cuda);
    cuda_ = std::move(*cuda);
  }
  if (CUresult rc = cuda_->cu_init(0); rc != CUDA_SUCCESS) {
    return core::fail(core::ErrorCode::Unavailable,
                      "no NVIDIA driver: cuInit failed: " + cuda_result_name(*cuda_, rc),
                      "check the driver with nvidia-smi; in a container, start it with the NVIDIA runtime");
  }
  driver_ready_ = true;
  return core::ok();
}

auto PmSampler::ensure_cupti() -> core::Result<void> {
  if (cupti_) return core::ok();
  auto cupti = deps_.load_cupti();
  if (!cupti) return core::propagate(cupti);
  if (auto valid = validate_cupti(**cupti); !valid) return valid;
  cupti_ = std::move(*cupti);
  return core::ok();
}

auto PmSampler::ensure_profiler() -> core::Result<void> {
  if (profiler_initialized_) return core::ok();
  if (g_profiler_owned.exchange(true)) {
    return core::fail(core::ErrorCode::FailedPrecondition,
                      "another PM sampler in this process already owns CUPTI's profiler state",
                      "use one PmSampler per process");
  }
  CUpti_Profiler_Initialize_Params p{};
  p.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
  if (CUptiResult rc = cupti_->profiler_initialize(&p); rc != CUPTI_SUCCESS) {
    g_profiler_owned = false;
    return core::fail(pm_error(*cupti_, rc, "cuptiProfilerInitialize", PmCall::Other, "this process"));
  }
  profiler_initialized_ = true;
  return core::ok();
}

auto PmSampler::open_device(std::uint32_t nvml_index, std::string_view pci_bus_id, std::int64_t interval_ns)
    -> core::Result<std::unique_ptr<PmDevice>> {
  const std::string label = "GPU " + std::to_string(nvml_index) + " (" + std::string(pci_bus_id) + ")";
  // The guard: nothing target-side in CUPTI before the driver answered and the device matched (doc section
  // 8).
  if (auto driver = ensure_driver(); !driver) return core::propagate(driver);
  auto ordinal = cuda_ordinal_of(*cuda_, pci_bus_id);
  if (!ordinal) return core::propagate(ordinal);
  CUdevice cu_device = 0;
  if (CUresult rc = cuda_->cu_device_get(&cu_device, *ordinal); rc != CUDA_SUCCESS) {
    return core::fail(core::ErrorCode::Unavailable,
                      "cuDeviceGet failed for " + label + ": " + cuda_result_name(*cuda_, rc));
  }
  if (const int cc = compute_capability(*cuda_, cu_device); cc != 0 && cc < kMinComputeCapability) {
    return core::fail(core::ErrorCode::Unimplemented,
                      label + " has compute capability " + std::to_string(cc / 10) + "." +
                          std::to_string(cc % 10) + "; PM sampling needs 7.5 (Turing) or newer",
                      "solscope falls back to NVML figures on this GPU");
  }
  if (auto cupti = ensure_cupti(); !cupti) return core::propagate(cupti);
  if (auto profiler = ensure_profiler(); !profiler) return core::propagate(profiler);
  if (auto supported = check_supported(*cupti_, cu_device, label); !supported) {
    return core::propagate(supported);
  }
  auto chip = chip_name(*cupti_, *ordinal, label);
  if (!chip) return core::propagate(chip);
  if (core::chip_family(*chip) == core::ChipFamily::Unknown) {
    return core::fail(
        core::ErrorCode::Unimplemented,
        label + " is a " + *chip + ": solscope has no single-pass PM-sampling counter set for it",
        "supported chips: " + core::known_chip_families_text() +
            "; solscope falls back to NVML figures on this GPU");
  }
  auto availability = counter_availability(*cupti_, *ordinal, label);
  if (!availability) return core::propagate(availability);
  auto config = PmConfig::for_chip(cupti_, *chip, std::move(*availability));
  if (!config) return core::propagate(config);
  auto device = std::make_unique<PmDevice>(nvml_index, *ordinal, label, std::move(*config));
  device->trigger = pm_trigger_for(*chip, interval_ns, cupti_->version);
  if (max_samples_ == 0) max_samples_ = pm_max_samples(interval_ns, options_.decode_period_ns);
  if (auto started = start_session(*cupti_, *device, session_settings(options_, max_samples_)); !started)
    return core::propagate(started);
  return device;
}

auto PmSampler::poll() -> PmPoll {
  PmPoll result;
  if (devices_.empty()) return result;
  const PmSessionSettings settings = session_settings(options_, max_samples_);
  for (auto it = devices_.begin(); it != devices_.end();) {
    PmDevice& device = **it;
    PmDecodeResult decoded = decode_device(*cupti_, device, settings, deps_.realtime_ns, result.samples);
    if (!decoded.lost && !decoded.counters_busy) {
      ++it;
      continue;
    }
    auto& faults = decoded.counters_busy ? result.busy : result.lost;
    faults.push_back(PmDeviceFault{.nvml_index = device.nvml_index, .error = std::move(decoded.error)});
    close_device(device, false);
    it = devices_.erase(it);
  }
  return result;
}

void PmSampler::close_device(PmDevice& device, bool drain) {
  end_session(*cupti_, device, drain);
}

void PmSampler::close(std::uint32_t nvml_index) {
  const auto it = std::find_if(devices_.begin(), devices_.end(),
                               [&](const auto& d) { return d->nvml_index == nvml_index; });
  if (it == devices_.end()) return;
  close_device(**it, true);
  devices_.erase(it);  // the host object (PmConfig) and the images go after Disable (doc section 1.6)
}

void PmSampler::close_all() {
  for (auto& device : devices_) close_device(*device, true);
  devices_.clear();  // host objects (PmConfig) and images go after Disable (doc section 1.6)
  if (profiler_initialized_) {
    CUpti_Profiler_DeInitialize_Params p{};
    p.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE;
    static_cast<void>(cupti_->profiler_deinitialize(&p));
    profiler_initialized_ = false;
    g_profiler_owned = false;
  }
}

auto PmSampler::dropped_counters(std::uint32_t nvml_index) const -> std::vector<std::string> {
  for (const auto& device : devices_) {
    if (device->nvml_index != nvml_index) continue;
    const auto dropped = device->config.dropped_counters();
    return {dropped.begin(), dropped.end()};
  }
  return {};
}

auto make_pm_sampler(PmSamplerOptions options) -> std::unique_ptr<PmSampling> {
  return std::make_unique<PmSampler>(std::move(options));
}

}  // namespace solscope::nvidia
