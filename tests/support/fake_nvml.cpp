#include "support/fake_nvml.hpp"

#include <gtest/gtest.h>

#include "support/fake_nvml_internal.hpp"

#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace solscope::nvidia::testing {
namespace {

FakeNvml* g_fake = nullptr;

// A handle is (GPU index + 1) | (MIG device index + 1) << 16; the upper part is 0 for a whole GPU.
constexpr std::uintptr_t kMigShift = 16;
constexpr std::uintptr_t kGpuMask = (std::uintptr_t{1} << kMigShift) - 1;

auto mig_index(nvml::Device device) -> std::optional<std::uint32_t> {
  const auto upper = reinterpret_cast<std::uintptr_t>(device) >> kMigShift;
  if (upper == 0) return std::nullopt;
  return static_cast<std::uint32_t>(upper - 1);
}

}  // namespace

auto fake() -> FakeNvml& {
  return *g_fake;
}

auto gpu_index(nvml::Device device) -> std::uint32_t {
  return static_cast<std::uint32_t>((reinterpret_cast<std::uintptr_t>(device) & kGpuMask) - 1);
}

auto enter(const char* function, nvml::Device device, FakeGpu*& gpu, FakeMigDevice** mig) -> nvml::Return {
  const std::uint32_t index = gpu_index(device);
  const std::optional<std::uint32_t> mig_at = mig_index(device);
  if (mig_at) {
    fake().count_mig(function, index, *mig_at);
  } else {
    fake().count(function, index);
  }
  if (index >= fake().gpus.size()) return nvml::kErrorInvalidArgument;
  gpu = &fake().gpus[index];
  if (gpu->lost) return nvml::kErrorGpuIsLost;
  if (mig_at) {
    if (!gpu->mig_enabled || *mig_at >= gpu->mig_devices.size()) return nvml::kErrorInvalidArgument;
    if (mig == nullptr) return nvml::kErrorNotSupported;  // not answered on a MIG device handle
    *mig = &gpu->mig_devices[*mig_at];
  }
  if (gpu->unsupported.contains(function)) return nvml::kErrorNotSupported;
  return nvml::kSuccess;
}

void copy_text(const std::string& text, char* out, std::size_t size) {
  const std::size_t n = std::min(text.size(), size - 1);
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

namespace {

auto init() -> nvml::Return {
  fake().count("nvmlInit_v2", std::nullopt);
  return fake().init_result;
}
auto shutdown() -> nvml::Return {
  fake().count("nvmlShutdown", std::nullopt);
  return nvml::kSuccess;
}
auto error_string(nvml::Return rc) -> const char* {
  switch (rc) {
    case nvml::kSuccess:
      return "Success";
    case nvml::kErrorNotSupported:
      return "Not Supported";
    case nvml::kErrorDriverNotLoaded:
      return "Driver Not Loaded";
    case nvml::kErrorGpuIsLost:
      return "GPU is lost";
    case nvml::kErrorInsufficientSize:
      return "Insufficient Size";
    default:
      return "Unknown Error";
  }
}
auto driver_version(char* out, unsigned int size) -> nvml::Return {
  fake().count("nvmlSystemGetDriverVersion", std::nullopt);
  copy_text(fake().driver_version, out, size);
  return nvml::kSuccess;
}
auto device_count(unsigned int* count) -> nvml::Return {
  fake().count("nvmlDeviceGetCount_v2", std::nullopt);
  *count = static_cast<unsigned int>(fake().gpus.size());
  return nvml::kSuccess;
}
auto handle_by_index(unsigned int index, nvml::Device* device) -> nvml::Return {
  fake().count("nvmlDeviceGetHandleByIndex_v2", index);
  if (index >= fake().gpus.size()) return nvml::kErrorInvalidArgument;
  if (fake().gpus[index].lost) return nvml::kErrorGpuIsLost;
  *device = fake_handle(index);
  return nvml::kSuccess;
}
auto name(nvml::Device device, char* out, unsigned int size) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  FakeMigDevice* mig = nullptr;
  if (auto rc = enter("nvmlDeviceGetName", device, gpu, &mig); rc != nvml::kSuccess) return rc;
  copy_text(mig != nullptr ? gpu->name + " MIG " + mig->profile : gpu->name, out, size);
  return nvml::kSuccess;
}
auto uuid(nvml::Device device, char* out, unsigned int size) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  FakeMigDevice* mig = nullptr;
  if (auto rc = enter("nvmlDeviceGetUUID", device, gpu, &mig); rc != nvml::kSuccess) return rc;
  copy_text(mig != nullptr ? mig->uuid : gpu->uuid, out, size);
  return nvml::kSuccess;
}
auto pci_info_v3(nvml::Device device, nvml::PciInfo* pci) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlDeviceGetPciInfo_v3", device, gpu); rc != nvml::kSuccess) return rc;
  copy_text(gpu->pci_bus_id, pci->bus_id.data(), pci->bus_id.size());
  copy_text(gpu->pci_bus_id.substr(4), pci->bus_id_legacy.data(), pci->bus_id_legacy.size());
  return nvml::kSuccess;
}
// The unversioned call of old drivers: a 16-byte bus id at offset 0 only.
auto pci_info_v1(nvml::Device device, nvml::PciInfo* pci) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlDeviceGetPciInfo", device, gpu); rc != nvml::kSuccess) return rc;
  copy_text(gpu->pci_bus_id.substr(4), pci->bus_id_legacy.data(), pci->bus_id_legacy.size());
  return nvml::kSuccess;
}
auto utilization(nvml::Device device, nvml::Utilization* util) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlDeviceGetUtilizationRates", device, gpu); rc != nvml::kSuccess) return rc;
  // nvml.h: "On MIG-enabled GPUs, querying device utilization rates is not currently supported."
  if (gpu->mig_enabled) return nvml::kErrorNotSupported;
  util->gpu = gpu->util_gpu_pct;
  util->memory = gpu->util_mem_pct;
  return nvml::kSuccess;
}
auto clock_info(nvml::Device device, nvml::ClockType type, unsigned int* mhz) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlDeviceGetClockInfo", device, gpu); rc != nvml::kSuccess) return rc;
  if (type != nvml::kClockSm && type != nvml::kClockMem) return nvml::kErrorInvalidArgument;
  *mhz = type == nvml::kClockSm ? gpu->sm_clock_mhz : gpu->mem_clock_mhz;
  return nvml::kSuccess;
}
auto max_clock_info(nvml::Device device, nvml::ClockType type, unsigned int* mhz) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlDeviceGetMaxClockInfo", device, gpu); rc != nvml::kSuccess) return rc;
  if (type != nvml::kClockSm && type != nvml::kClockMem) return nvml::kErrorInvalidArgument;
  *mhz = type == nvml::kClockSm ? gpu->max_sm_clock_mhz : gpu->max_mem_clock_mhz;
  return nvml::kSuccess;
}
auto power_usage(nvml::Device device, unsigned int* mw) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlDeviceGetPowerUsage", device, gpu); rc != nvml::kSuccess) return rc;
  *mw = gpu->power_mw;
  return nvml::kSuccess;
}
auto power_limit(nvml::Device device, unsigned int* mw) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlDeviceGetEnforcedPowerLimit", device, gpu); rc != nvml::kSuccess) return rc;
  *mw = gpu->power_limit_mw;
  return nvml::kSuccess;
}
auto temperature_v(nvml::Device device, nvml::TemperatureV1* temp) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlDeviceGetTemperatureV", device, gpu); rc != nvml::kSuccess) return rc;
  if (temp->version != nvml::kTemperatureV1Version) return nvml::kErrorArgumentVersionMismatch;
  if (temp->sensor_type != nvml::kTemperatureGpu) return nvml::kErrorInvalidArgument;
  temp->temperature = static_cast<int>(gpu->temperature_c);
  return nvml::kSuccess;
}
auto temperature(nvml::Device device, nvml::TemperatureSensor sensor, unsigned int* celsius) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlDeviceGetTemperature", device, gpu); rc != nvml::kSuccess) return rc;
  if (sensor != nvml::kTemperatureGpu) return nvml::kErrorInvalidArgument;
  *celsius = gpu->temperature_c;
  return nvml::kSuccess;
}
// Total and used bytes of a GPU or, per instance, of a MIG device.
auto memory_of(const FakeGpu& gpu, const FakeMigDevice* mig)
    -> std::pair<unsigned long long, unsigned long long> {
  if (mig == nullptr) return {gpu.memory_total_bytes, gpu.memory_used_bytes};
  return {mig->memory_mib * 1024ULL * 1024ULL, mig->memory_used_bytes};
}
auto memory_v2(nvml::Device device, nvml::MemoryV2* mem) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  FakeMigDevice* mig = nullptr;
  if (auto rc = enter("nvmlDeviceGetMemoryInfo_v2", device, gpu, &mig); rc != nvml::kSuccess) return rc;
  if (mem->version != nvml::kMemoryV2Version) return nvml::kErrorArgumentVersionMismatch;
  const auto [total, used] = memory_of(*gpu, mig);
  mem->total = total;
  mem->used = used;
  mem->reserved = 0;
  mem->free = total - used;
  return nvml::kSuccess;
}
auto memory_v1(nvml::Device device, nvml::MemoryV1* mem) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  FakeMigDevice* mig = nullptr;
  if (auto rc = enter("nvmlDeviceGetMemoryInfo", device, gpu, &mig); rc != nvml::kSuccess) return rc;
  const auto [total, used] = memory_of(*gpu, mig);
  mem->total = total;
  mem->used = used;
  mem->free = total - used;
  return nvml::kSuccess;
}
auto bus_width(nvml::Device device, unsigned int* bits) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlDeviceGetMemoryBusWidth", device, gpu); rc != nvml::kSuccess) return rc;
  *bits = gpu->bus_width_bits;
  return nvml::kSuccess;
}
template <class Info>
auto list_processes(const char* function, nvml::Device device, unsigned int* count, Info* infos)
    -> nvml::Return {
  FakeGpu* gpu = nullptr;
  FakeMigDevice* mig = nullptr;
  if (auto rc = enter(function, device, gpu, &mig); rc != nvml::kSuccess) return rc;
  std::vector<nvml::ProcessInfo>& listed = mig != nullptr ? mig->processes : gpu->processes;
  const auto have = static_cast<unsigned int>(listed.size());
  if (infos == nullptr || *count < have) {
    const unsigned int capacity = infos == nullptr ? 0 : *count;
    *count = have;
    if (infos == nullptr && mig == nullptr) {
      gpu->processes.insert(gpu->processes.end(), gpu->processes_started_after_count.begin(),
                            gpu->processes_started_after_count.end());
      gpu->processes_started_after_count.clear();
    }
    return have <= capacity ? nvml::kSuccess : nvml::kErrorInsufficientSize;
  }
  for (unsigned int i = 0; i < have; ++i) {
    infos[i].pid = listed[i].pid;
    infos[i].used_gpu_memory = listed[i].used_gpu_memory;
  }
  *count = have;
  return nvml::kSuccess;
}
auto processes_v3(nvml::Device device, unsigned int* count, nvml::ProcessInfo* infos) -> nvml::Return {
  return list_processes("nvmlDeviceGetComputeRunningProcesses_v3", device, count, infos);
}
auto processes_v1(nvml::Device device, unsigned int* count, nvml::ProcessInfoV1* infos) -> nvml::Return {
  return list_processes("nvmlDeviceGetComputeRunningProcesses", device, count, infos);
}
auto mig_mode(nvml::Device device, unsigned int* current, unsigned int* pending) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlDeviceGetMigMode", device, gpu); rc != nvml::kSuccess) return rc;
  *current = gpu->mig_enabled ? nvml::kMigEnable : 0;
  *pending = *current;
  return nvml::kSuccess;
}
auto architecture(nvml::Device device, nvml::Architecture* arch) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlDeviceGetArchitecture", device, gpu); rc != nvml::kSuccess) return rc;
  *arch = gpu->arch;
  return nvml::kSuccess;
}

auto gpm_support(nvml::Device device, nvml::GpmSupport* support) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlGpmQueryDeviceSupport", device, gpu); rc != nvml::kSuccess) return rc;
  if (support->version != nvml::kGpmSupportVersion) return nvml::kErrorArgumentVersionMismatch;
  support->is_supported_device = gpu->gpm_supported ? 1 : 0;
  return nvml::kSuccess;
}
auto gpm_alloc(nvml::GpmSample* sample) -> nvml::Return {
  fake().count("nvmlGpmSampleAlloc", std::nullopt);
  auto* owned = new FakeGpmSample;
  *sample = reinterpret_cast<nvml::GpmSample>(owned);
  fake().gpm_samples_.insert(owned);
  return nvml::kSuccess;
}
auto gpm_free(nvml::GpmSample sample) -> nvml::Return {
  fake().count("nvmlGpmSampleFree", std::nullopt);
  auto* owned = reinterpret_cast<FakeGpmSample*>(sample);
  if (fake().gpm_samples_.erase(owned) == 0) return nvml::kErrorInvalidArgument;
  delete owned;
  return nvml::kSuccess;
}
auto gpm_sample_get(nvml::Device device, nvml::GpmSample sample) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlGpmSampleGet", device, gpu); rc != nvml::kSuccess) return rc;
  auto* owned = reinterpret_cast<FakeGpmSample*>(sample);
  if (!fake().gpm_samples_.contains(owned)) return nvml::kErrorInvalidArgument;
  *owned = {.gpu = gpu_index(device), .taken = true, .counters = gpu->gpm_counters};
  return nvml::kSuccess;
}
auto gpm_metrics_get(nvml::GpmMetricsGet* request) -> nvml::Return {
  fake().count("nvmlGpmMetricsGet", std::nullopt);
  if (request->version != nvml::kGpmMetricsGetVersion) return nvml::kErrorArgumentVersionMismatch;
  auto* first = reinterpret_cast<FakeGpmSample*>(request->sample1);
  auto* second = reinterpret_cast<FakeGpmSample*>(request->sample2);
  if (!fake().gpm_samples_.contains(first) || !fake().gpm_samples_.contains(second) || !first->taken ||
      !second->taken || request->num_metrics > request->metrics.size()) {
    return nvml::kErrorInvalidArgument;
  }
  const FakeGpu& gpu = fake().gpus.at(second->gpu);
  if (gpu.lost) return nvml::kErrorGpuIsLost;
  fake().last_gpm_request_.clear();
  for (unsigned int i = 0; i < request->num_metrics; ++i) {
    nvml::GpmMetric& metric = request->metrics[i];
    fake().last_gpm_request_.push_back(metric.metric_id);
    if (gpu.gpm_unsupported_metrics.contains(metric.metric_id)) {
      metric.nvml_return = nvml::kErrorNotSupported;
      continue;
    }
    metric.value = second->counters[metric.metric_id] - first->counters[metric.metric_id];
    metric.nvml_return = nvml::kSuccess;
  }
  return nvml::kSuccess;
}

template <class Fn>
auto symbol(Fn fn) -> void* {
  return reinterpret_cast<void*>(fn);
}

auto symbol_table() -> const std::map<std::string, void*, std::less<>>& {
  static const std::map<std::string, void*, std::less<>> kTable{
      {"nvmlInit_v2", symbol(&init)},
      {"nvmlInit", symbol(&init)},
      {"nvmlShutdown", symbol(&shutdown)},
      {"nvmlErrorString", symbol(&error_string)},
      {"nvmlSystemGetDriverVersion", symbol(&driver_version)},
      {"nvmlDeviceGetCount_v2", symbol(&device_count)},
      {"nvmlDeviceGetHandleByIndex_v2", symbol(&handle_by_index)},
      {"nvmlDeviceGetName", symbol(&name)},
      {"nvmlDeviceGetUUID", symbol(&uuid)},
      {"nvmlDeviceGetPciInfo_v3", symbol(&pci_info_v3)},
      {"nvmlDeviceGetPciInfo", symbol(&pci_info_v1)},
      {"nvmlDeviceGetUtilizationRates", symbol(&utilization)},
      {"nvmlDeviceGetClockInfo", symbol(&clock_info)},
      {"nvmlDeviceGetMaxClockInfo", symbol(&max_clock_info)},
      {"nvmlDeviceGetPowerUsage", symbol(&power_usage)},
      {"nvmlDeviceGetEnforcedPowerLimit", symbol(&power_limit)},
      {"nvmlDeviceGetTemperatureV", symbol(&temperature_v)},
      {"nvmlDeviceGetTemperature", symbol(&temperature)},
      {"nvmlDeviceGetMemoryInfo_v2", symbol(&memory_v2)},
      {"nvmlDeviceGetMemoryInfo", symbol(&memory_v1)},
      {"nvmlDeviceGetMemoryBusWidth", symbol(&bus_width)},
      {"nvmlDeviceGetComputeRunningProcesses_v3", symbol(&processes_v3)},
      {"nvmlDeviceGetComputeRunningProcesses", symbol(&processes_v1)},
      {"nvmlDeviceGetMigMode", symbol(&mig_mode)},
      {"nvmlDeviceGetArchitecture", symbol(&architecture)},
      {"nvmlGpmQueryDeviceSupport", symbol(&gpm_support)},
      {"nvmlGpmSampleAlloc", symbol(&gpm_alloc)},
      {"nvmlGpmSampleFree", symbol(&gpm_free)},
      {"nvmlGpmSampleGet", symbol(&gpm_sample_get)},
      {"nvmlGpmMetricsGet", symbol(&gpm_metrics_get)},
  };
  return kTable;
}

auto find_symbol(std::string_view name) -> void* {
  if (const auto it = symbol_table().find(name); it != symbol_table().end()) return it->second;
  if (void* mig = find_mig_symbol(name)) return mig;
  return find_process_symbol(name);
}

}  // namespace

auto fake_handle(std::uint32_t gpu) -> nvml::Device {
  return reinterpret_cast<nvml::Device>(static_cast<std::uintptr_t>(gpu) + 1);
}

auto fake_mig_handle(std::uint32_t gpu, std::uint32_t mig) -> nvml::Device {
  return reinterpret_cast<nvml::Device>((static_cast<std::uintptr_t>(gpu) + 1) |
                                        ((static_cast<std::uintptr_t>(mig) + 1) << kMigShift));
}

FakeNvml::FakeNvml() {
  EXPECT_EQ(g_fake, nullptr) << "one FakeNvml at a time";
  g_fake = this;
}

FakeNvml::~FakeNvml() {
  for (void* sample : gpm_samples_) delete static_cast<FakeGpmSample*>(sample);
  g_fake = nullptr;
}

auto FakeNvml::lookup(const char* name) const -> void* {
  if (missing.contains(name)) return nullptr;
  return find_symbol(name);
}

auto FakeNvml::api() const -> NvmlApi {
  auto api = resolve_nvml([this](const char* name) { return lookup(name); });
  if (!api) {
    ADD_FAILURE() << "fake NVML does not resolve: " << api.error().message;
    return {};
  }
  return *api;
}

void FakeNvml::count(std::string_view function, std::optional<std::uint32_t> gpu) {
  ++calls_[std::string(function)];
  if (gpu) ++device_calls_[std::string(function) + "#" + std::to_string(*gpu)];
}

auto FakeNvml::calls(std::string_view function) const -> int {
  const auto it = calls_.find(function);
  return it == calls_.end() ? 0 : it->second;
}

void FakeNvml::count_mig(std::string_view function, std::uint32_t gpu, std::uint32_t mig) {
  ++calls_[std::string(function)];
  ++device_calls_[std::string(function) + "#" + std::to_string(gpu) + "/" + std::to_string(mig)];
}

auto FakeNvml::mig_calls(std::string_view function, std::uint32_t gpu, std::uint32_t mig) const -> int {
  const auto it =
      device_calls_.find(std::string(function) + "#" + std::to_string(gpu) + "/" + std::to_string(mig));
  return it == device_calls_.end() ? 0 : it->second;
}

auto FakeNvml::calls(std::string_view function, std::uint32_t gpu) const -> int {
  const auto it = device_calls_.find(std::string(function) + "#" + std::to_string(gpu));
  return it == device_calls_.end() ? 0 : it->second;
}

auto FakeNvml::live_gpm_samples() const -> std::size_t {
  return gpm_samples_.size();
}

FakeProcfsTree::FakeProcfsTree(const std::optional<std::string>& nvidia_params,
                               const std::optional<std::string>& self_status) {
  static std::atomic<int> counter{0};
  root_ = std::filesystem::temp_directory_path() /
          ("solscope-procfs-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::create_directories(root_ / "proc/driver/nvidia");
  std::filesystem::create_directories(root_ / "proc/self");
  if (nvidia_params) std::ofstream(root_ / "proc/driver/nvidia/params") << *nvidia_params;
  if (self_status) std::ofstream(root_ / "proc/self/status") << *self_status;
}

FakeProcfsTree::~FakeProcfsTree() {
  std::error_code ignored;
  std::filesystem::remove_all(root_, ignored);
}

auto status_with_cap_eff(std::uint64_t cap_eff) -> std::string {
  char mask[17];
  std::snprintf(mask, sizeof mask, "%016llx", static_cast<unsigned long long>(cap_eff));
  return std::string("Name:\tsolscope\nUmask:\t0022\nState:\tR (running)\nUid:\t1000\t1000\t1000\t1000\n") +
         "CapInh:\t0000000000000000\nCapPrm:\t" + mask + "\nCapEff:\t" + mask +
         "\nCapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\nNoNewPrivs:\t0\n";
}

auto nvidia_params(int admin_only) -> std::string {
  return "ResmanDebugLevel: 4294967295\nRmLogonRC: 1\nModifyDeviceFiles: 1\nDeviceFileUID: 0\n"
         "RmProfilingAdminOnly: " +
         std::to_string(admin_only) + "\nEnableMSI: 1\n";
}

}  // namespace solscope::nvidia::testing
