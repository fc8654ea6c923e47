// The synthetic NVML's graphics and MPS process lists and its per-process utilization samples
// (fake_nvml.hpp). Return codes follow the NVML API reference ("Device Queries"):
// - nvmlDeviceGet{Graphics,MPSCompute}RunningProcesses_v3: with a NULL buffer (or one too small) the count
//   needed and NVML_ERROR_INSUFFICIENT_SIZE, NVML_SUCCESS with count 0 when there is none; else the entries;
// - nvmlDeviceGetProcessUtilization(device, samples, &count, lastSeenTimeStamp): only samples whose
//   timeStamp is above lastSeenTimeStamp; NVML_ERROR_NOT_FOUND when there is none; with a NULL buffer (or one
//   too small) the count and NVML_ERROR_INSUFFICIENT_SIZE; NOT_SUPPORTED on a MIG device handle (nvml.h
//   documents no per-instance answer) and where FakeGpu::unsupported names it.
#include <map>
#include <string>
#include <vector>

#include "support/fake_nvml.hpp"
#include "support/fake_nvml_internal.hpp"

namespace solscope::nvidia::testing {
namespace {

auto list_of(const char* function, nvml::Device device, unsigned int* count, nvml::ProcessInfo* infos,
             std::vector<nvml::ProcessInfo> FakeGpu::*member) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  FakeMigDevice* mig = nullptr;
  if (auto rc = enter(function, device, gpu, &mig); rc != nvml::kSuccess) return rc;
  static const std::vector<nvml::ProcessInfo> kNone;
  const std::vector<nvml::ProcessInfo>& listed = mig != nullptr ? kNone : gpu->*member;
  const auto have = static_cast<unsigned int>(listed.size());
  if (infos == nullptr || *count < have) {
    *count = have;
    return have == 0 ? nvml::kSuccess : nvml::kErrorInsufficientSize;
  }
  for (unsigned int i = 0; i < have; ++i) infos[i] = listed[i];
  *count = have;
  return nvml::kSuccess;
}

auto graphics_v3(nvml::Device device, unsigned int* count, nvml::ProcessInfo* infos) -> nvml::Return {
  return list_of("nvmlDeviceGetGraphicsRunningProcesses_v3", device, count, infos,
                 &FakeGpu::graphics_processes);
}

auto mps_v3(nvml::Device device, unsigned int* count, nvml::ProcessInfo* infos) -> nvml::Return {
  return list_of("nvmlDeviceGetMPSComputeRunningProcesses_v3", device, count, infos, &FakeGpu::mps_processes);
}

auto process_utilization(nvml::Device device, nvml::ProcessUtilizationSample* samples, unsigned int* count,
                         unsigned long long last_seen_us) -> nvml::Return {
  FakeGpu* gpu = nullptr;
  if (auto rc = enter("nvmlDeviceGetProcessUtilization", device, gpu); rc != nvml::kSuccess) return rc;
  gpu->utilization_since.push_back(last_seen_us);
  std::vector<nvml::ProcessUtilizationSample> newer;
  for (const auto& s : gpu->utilization_samples) {
    if (s.time_stamp > last_seen_us) newer.push_back(s);
  }
  if (newer.empty()) {
    *count = 0;
    return nvml::kErrorNotFound;
  }
  const auto have = static_cast<unsigned int>(newer.size());
  if (samples == nullptr || *count < have) {
    *count = have;
    return nvml::kErrorInsufficientSize;
  }
  for (unsigned int i = 0; i < have; ++i) samples[i] = newer[i];
  *count = have;
  return nvml::kSuccess;
}

template <class Fn>
auto symbol(Fn fn) -> void* {
  return reinterpret_cast<void*>(fn);
}

}  // namespace

auto find_process_symbol(std::string_view name) -> void* {
  static const std::map<std::string, void*, std::less<>> kTable{
      {"nvmlDeviceGetGraphicsRunningProcesses_v3", symbol(&graphics_v3)},
      {"nvmlDeviceGetMPSComputeRunningProcesses_v3", symbol(&mps_v3)},
      // _v2 fills the same nvmlProcessInfo_v2_t (nvml.h); the fake counts its calls under the _v3 name.
      {"nvmlDeviceGetGraphicsRunningProcesses_v2", symbol(&graphics_v3)},
      {"nvmlDeviceGetMPSComputeRunningProcesses_v2", symbol(&mps_v3)},
      {"nvmlDeviceGetProcessUtilization", symbol(&process_utilization)},
  };
  const auto it = kTable.find(name);
  return it == kTable.end() ? nullptr : it->second;
}

}  // namespace solscope::nvidia::testing
