// The synthetic NVML's MIG API and its two MIG layouts (fake_nvml.hpp). Return codes follow nvml.h's "Multi
// Instance GPU Management" section (NVML API 13): nvmlDeviceGetMaxMigDeviceCount is 0 while MIG is off,
// nvmlDeviceGetMigDeviceHandleByIndex answers NOT_FOUND for an index with no MIG device and INVALID_ARGUMENT
// past the maximum, nvmlDeviceGetAttributes_v2 "currently only supports MIG device handles", and
// nvmlDeviceGetGpuInstanceProfileInfoV answers NOT_SUPPORTED for a profile the GPU lacks (or with MIG off)
// and INVALID_ARGUMENT past the last profile or for a wrong struct version.
#include <array>
#include <cstdio>
#include <map>
#include <string>

#include "support/fake_nvml.hpp"
#include "support/fake_nvml_internal.hpp"

namespace solscope::nvidia::testing {
namespace {

auto max_mig_device_count(nvml::Device device, unsigned int* count) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlDeviceGetMaxMigDeviceCount", device, gpu); rc != nvml::kSuccess) return rc;
  *count = gpu->mig_enabled ? gpu->max_mig_devices : 0;
  return nvml::kSuccess;
}
auto mig_device_handle_by_index(nvml::Device device, unsigned int index, nvml::Device* mig) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlDeviceGetMigDeviceHandleByIndex", device, gpu); rc != nvml::kSuccess) return rc;
  if (!gpu->mig_enabled) return nvml::kErrorNotSupported;
  if (index >= gpu->max_mig_devices) return nvml::kErrorInvalidArgument;
  if (index >= gpu->mig_devices.size()) return nvml::kErrorNotFound;
  *mig = fake_mig_handle(gpu_index(device), index);
  return nvml::kSuccess;
}
auto is_mig_device_handle(nvml::Device device, unsigned int* is_mig) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  FakeMigDevice* mig = nullptr;
  if (auto rc = enter("nvmlDeviceIsMigDeviceHandle", device, gpu, &mig); rc != nvml::kSuccess) return rc;
  *is_mig = mig != nullptr ? 1 : 0;
  return nvml::kSuccess;
}
auto parent_of_mig(nvml::Device device, nvml::Device* parent) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  FakeMigDevice* mig = nullptr;
  if (auto rc = enter("nvmlDeviceGetDeviceHandleFromMigDeviceHandle", device, gpu, &mig);
      rc != nvml::kSuccess)
    return rc;
  if (mig == nullptr) return nvml::kErrorInvalidArgument;
  *parent = fake_handle(gpu_index(device));
  return nvml::kSuccess;
}
// nvmlDeviceGetGpuInstanceId / ComputeInstanceId: MIG device handles only.
auto instance_id(const char* function, nvml::Device device, unsigned int* id, bool compute) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  FakeMigDevice* mig = nullptr;
  if (auto rc = enter(function, device, gpu, &mig); rc != nvml::kSuccess) return rc;
  if (mig == nullptr) return nvml::kErrorNotSupported;
  *id = compute ? mig->compute_instance_id : mig->gpu_instance_id;
  return nvml::kSuccess;
}
auto gpu_instance_id(nvml::Device device, unsigned int* id) -> nvml::Return {
  return instance_id("nvmlDeviceGetGpuInstanceId", device, id, false);
}
auto compute_instance_id(nvml::Device device, unsigned int* id) -> nvml::Return {
  return instance_id("nvmlDeviceGetComputeInstanceId", device, id, true);
}
auto attributes(nvml::Device device, nvml::DeviceAttributes* attrs) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  FakeMigDevice* mig = nullptr;
  if (auto rc = enter("nvmlDeviceGetAttributes_v2", device, gpu, &mig); rc != nvml::kSuccess) return rc;
  if (mig == nullptr) return nvml::kErrorNotSupported;
  *attrs = nvml::DeviceAttributes{};
  attrs->multiprocessor_count = mig->sm_count;
  attrs->gpu_instance_slice_count = mig->gpu_instance_slices;
  attrs->compute_instance_slice_count = mig->compute_instance_slices;
  attrs->memory_size_mb = mig->memory_mib;
  return nvml::kSuccess;
}
auto profile_info_v(nvml::Device device, unsigned int profile, nvml::GpuInstanceProfileInfoV2* info)
    -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlDeviceGetGpuInstanceProfileInfoV", device, gpu); rc != nvml::kSuccess) return rc;
  if (profile >= nvml::kGpuInstanceProfileCount || info->version != nvml::kGpuInstanceProfileInfoV2Version) {
    return nvml::kErrorInvalidArgument;
  }
  if (!gpu->mig_enabled) return nvml::kErrorNotSupported;
  for (const FakeGiProfile& p : gpu->gi_profiles) {
    if (p.profile != profile) continue;
    *info = nvml::GpuInstanceProfileInfoV2{};
    info->version = nvml::kGpuInstanceProfileInfoV2Version;
    info->id = p.id;
    info->slice_count = p.slices;
    info->instance_count = p.instances;
    info->multiprocessor_count = p.sm_count;
    info->memory_size_mb = p.memory_mib;
    copy_text(p.name, info->name.data(), info->name.size());
    return nvml::kSuccess;
  }
  return nvml::kErrorNotSupported;
}
auto gpm_mig_sample_get(nvml::Device device, unsigned int gpu_instance, nvml::GpmSample sample)
    -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlGpmMigSampleGet", device, gpu); rc != nvml::kSuccess) return rc;
  if (!gpu->gpm_supported || !gpu->mig_enabled) return nvml::kErrorNotSupported;
  auto* owned = reinterpret_cast<FakeGpmSample*>(sample);
  if (!fake().gpm_samples_.contains(owned)) return nvml::kErrorInvalidArgument;
  for (const FakeMigDevice& mig : gpu->mig_devices) {
    if (mig.gpu_instance_id != gpu_instance) continue;
    *owned = {.gpu = gpu_index(device), .taken = true, .counters = mig.gpm_counters};
    return nvml::kSuccess;
  }
  return nvml::kErrorInvalidArgument;  // no such GPU instance (synthetic code: nvml.h names none)
}

template <class Fn>
auto symbol(Fn fn) -> void* {
  return reinterpret_cast<void*>(fn);
}

constexpr unsigned long long kMib = 1024ULL * 1024ULL;

// NVML_GPU_INSTANCE_PROFILE_* values (nvml.h).
constexpr unsigned int k1Slice = 0x0;
constexpr unsigned int k2Slice = 0x1;
constexpr unsigned int k3Slice = 0x2;
constexpr unsigned int k4Slice = 0x3;
constexpr unsigned int k7Slice = 0x4;
constexpr unsigned int k1SliceRev1 = 0x7;
constexpr unsigned int k1SliceRev2 = 0x9;

auto mig_device(std::string uuid, std::string profile, unsigned int gi, const FakeGiProfile& p)
    -> FakeMigDevice {
  return {.uuid = std::move(uuid),
          .profile = std::move(profile),
          .gpu_instance_id = gi,
          .compute_instance_id = 0,
          .sm_count = p.sm_count,
          .gpu_instance_slices = p.slices,
          .compute_instance_slices = p.slices,
          .memory_mib = p.memory_mib,
          .memory_used_bytes = 0,
          .processes = {},
          .gpm_counters = {}};
}

}  // namespace

auto find_mig_symbol(std::string_view name) -> void* {
  static const std::map<std::string, void*, std::less<>> kTable{
      {"nvmlDeviceGetMaxMigDeviceCount", symbol(&max_mig_device_count)},
      {"nvmlDeviceGetMigDeviceHandleByIndex", symbol(&mig_device_handle_by_index)},
      {"nvmlDeviceIsMigDeviceHandle", symbol(&is_mig_device_handle)},
      {"nvmlDeviceGetDeviceHandleFromMigDeviceHandle", symbol(&parent_of_mig)},
      {"nvmlDeviceGetGpuInstanceId", symbol(&gpu_instance_id)},
      {"nvmlDeviceGetComputeInstanceId", symbol(&compute_instance_id)},
      {"nvmlDeviceGetAttributes_v2", symbol(&attributes)},
      {"nvmlDeviceGetGpuInstanceProfileInfoV", symbol(&profile_info_v)},
      {"nvmlGpmMigSampleGet", symbol(&gpm_mig_sample_get)},
  };
  const auto it = kTable.find(name);
  return it == kTable.end() ? nullptr : it->second;
}

auto a100_80gb_mig_gpu() -> FakeGpu {
  FakeGpu gpu;
  gpu.name = "NVIDIA A100-SXM4-80GB";
  gpu.uuid = "GPU-a1000000-0000-4000-8000-000000000080";
  gpu.pci_bus_id = "00000000:07:00.0";
  gpu.arch = nvml::kArchAmpere;
  gpu.gpm_supported = false;
  gpu.mig_enabled = true;
  gpu.max_sm_clock_mhz = 1410;
  gpu.max_mem_clock_mhz = 1593;
  gpu.memory_total_bytes = 80ULL * 1024 * kMib;
  gpu.gi_profiles = {
      {.profile = k1Slice,
       .id = 19,
       .name = "MIG 1g.10gb",
       .slices = 1,
       .instances = 7,
       .sm_count = 14,
       .memory_mib = 9728},
      {.profile = k2Slice,
       .id = 14,
       .name = "MIG 2g.20gb",
       .slices = 2,
       .instances = 3,
       .sm_count = 28,
       .memory_mib = 19968},
      {.profile = k3Slice,
       .id = 9,
       .name = "MIG 3g.40gb",
       .slices = 3,
       .instances = 2,
       .sm_count = 42,
       .memory_mib = 40192},
      {.profile = k4Slice,
       .id = 5,
       .name = "MIG 4g.40gb",
       .slices = 4,
       .instances = 1,
       .sm_count = 56,
       .memory_mib = 40192},
      {.profile = k7Slice,
       .id = 0,
       .name = "MIG 7g.80gb",
       .slices = 7,
       .instances = 1,
       .sm_count = 98,
       .memory_mib = 80896},
      {.profile = k1SliceRev1,
       .id = 20,
       .name = "MIG 1g.10gb+me",
       .slices = 1,
       .instances = 1,
       .sm_count = 14,
       .memory_mib = 9728},
      {.profile = k1SliceRev2,
       .id = 15,
       .name = "MIG 1g.20gb",
       .slices = 1,
       .instances = 4,
       .sm_count = 14,
       .memory_mib = 19968},
  };
  gpu.mig_devices = {
      mig_device("MIG-a1000000-0003-4000-8000-000000000001", "3g.40gb", 1, gpu.gi_profiles[2]),
      mig_device("MIG-a1000000-0002-4000-8000-000000000003", "2g.20gb", 3, gpu.gi_profiles[1]),
      mig_device("MIG-a1000000-0002-4000-8000-000000000004", "2g.20gb", 4, gpu.gi_profiles[1])};
  return gpu;
}

auto h100_80gb_mig_gpu() -> FakeGpu {
  FakeGpu gpu;
  gpu.name = "NVIDIA H100 80GB HBM3";
  gpu.uuid = "GPU-0b100000-0000-4000-8000-000000000080";
  gpu.pci_bus_id = "00000000:18:00.0";
  gpu.arch = nvml::kArchHopper;
  gpu.gpm_supported = true;
  gpu.mig_enabled = true;
  gpu.gi_profiles = {
      {.profile = k1Slice,
       .id = 19,
       .name = "MIG 1g.10gb",
       .slices = 1,
       .instances = 7,
       .sm_count = 16,
       .memory_mib = 9984},
      {.profile = k2Slice,
       .id = 14,
       .name = "MIG 2g.20gb",
       .slices = 2,
       .instances = 3,
       .sm_count = 32,
       .memory_mib = 20096},
      {.profile = k3Slice,
       .id = 9,
       .name = "MIG 3g.40gb",
       .slices = 3,
       .instances = 2,
       .sm_count = 60,
       .memory_mib = 40448},
      {.profile = k4Slice,
       .id = 5,
       .name = "MIG 4g.40gb",
       .slices = 4,
       .instances = 1,
       .sm_count = 64,
       .memory_mib = 40448},
      {.profile = k7Slice,
       .id = 0,
       .name = "MIG 7g.80gb",
       .slices = 7,
       .instances = 1,
       .sm_count = 132,
       .memory_mib = 81152},
      {.profile = k1SliceRev1,
       .id = 20,
       .name = "MIG 1g.10gb+me",
       .slices = 1,
       .instances = 1,
       .sm_count = 16,
       .memory_mib = 9984},
      {.profile = k1SliceRev2,
       .id = 15,
       .name = "MIG 1g.20gb",
       .slices = 1,
       .instances = 4,
       .sm_count = 26,
       .memory_mib = 20096},
  };
  for (unsigned int i = 0; i < 7; ++i) {
    std::array<char, 13> last{};  // the UUID's last group: 12 hex digits of the GI id
    std::snprintf(last.data(), last.size(), "%012x", 7 + i);
    gpu.mig_devices.push_back(mig_device("MIG-0b100000-0001-4000-8000-" + std::string(last.data()), "1g.10gb",
                                         7 + i, gpu.gi_profiles[0]));
  }
  return gpu;
}

}  // namespace solscope::nvidia::testing
