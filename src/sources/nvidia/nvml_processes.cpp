// NvmlReader::processes: the processes on a device from NVML's three process lists and its per-process
// utilization samples [NVML API reference, "Device Queries": nvmlDeviceGetComputeRunningProcesses,
// nvmlDeviceGetGraphicsRunningProcesses, nvmlDeviceGetMPSComputeRunningProcesses,
// nvmlDeviceGetProcessUtilization].
//
// Every list answers the same size protocol: a call with a NULL buffer (count 0) answers
// NVML_ERROR_INSUFFICIENT_SIZE and the count needed (NVML_SUCCESS when there is none); a buffer that has
// become too small answers the same again. Lists merge by pid: the compute entry wins (its memory, not
// graphics); a pid on the MPS list is an MPS client (`mps`), added when the compute list lacks it; a pid only
// on the graphics list is added with `graphics`. nvidia-smi's Type column shows the same facts (C, G, C+G,
// M, M+C).
//
// nvmlDeviceGetProcessUtilization returns the samples newer than lastSeenTimeStamp (a CPU time in us), one
// per process that had non-zero utilization in a driver sample period, and NVML_ERROR_NOT_FOUND when there
// is none since then. So a listed process without a sample was idle: NOT_FOUND gives every listed process
// sm_pct 0 (the GPU ran none of them), and so does a pid missing from a batch. NOT_SUPPORTED (and a driver
// without the function) leaves sm_pct unknown: attribution then never splits the GPU (core/workload.hpp).
#include <algorithm>
#include <set>
#include <utility>

#include "sources/nvidia/nvml_reader.hpp"

namespace solscope::nvidia {
namespace {

constexpr std::size_t kListSlack = 8;  // room for processes (or samples) that appear between the two calls
constexpr int kListAttempts = 3;

// Calls `fn(handle, &count, buffer)` by the size protocol: a count-only call, then a buffer with slack,
// again while the answer outgrows it. On success `items` holds the entries written.
template <class Info, class Fn>
auto sized_call(Fn fn, std::vector<Info>& items) -> nvml::Return {
  unsigned int count = 0;
  nvml::Return rc = fn(&count, nullptr);
  items.clear();
  if (rc == nvml::kSuccess) return rc;
  for (int attempt = 0; attempt < kListAttempts && rc == nvml::kErrorInsufficientSize; ++attempt) {
    items.assign(count + kListSlack, Info{});
    count = static_cast<unsigned int>(items.size());
    rc = fn(&count, items.data());
  }
  items.resize(rc == nvml::kSuccess ? std::min<std::size_t>(count, items.size()) : 0);
  return rc;
}

// One of NVML's process lists (nvmlProcessInfo_v2_t or _v1_t layout) as GpuProcess entries.
template <class Info, class ListFn>
auto list_with(ListFn fn, nvml::Device handle, std::vector<GpuProcess>& out) -> nvml::Return {
  std::vector<Info> infos;
  const nvml::Return rc =
      sized_call(([&](unsigned int* count, Info* buffer) { return fn(handle, count, buffer); }), infos);
  out.clear();
  for (const Info& info : infos) out.push_back({.pid = info.pid, .used_memory_bytes = info.used_gpu_memory});
  return rc;
}

auto find_pid(std::vector<GpuProcess>& out, std::uint32_t pid) -> GpuProcess* {
  const auto it = std::find_if(out.begin(), out.end(), [pid](const GpuProcess& p) { return p.pid == pid; });
  return it == out.end() ? nullptr : &*it;
}

}  // namespace

auto process_sm_pct(std::span<const nvml::ProcessUtilizationSample> samples)
    -> std::map<std::uint32_t, double> {
  std::map<std::uint32_t, double> sum;
  std::set<unsigned long long> periods;
  for (const auto& s : samples) {
    sum[s.pid] += s.sm_util;
    periods.insert(s.time_stamp);
  }
  for (auto& [pid, pct] : sum) pct /= static_cast<double>(periods.size());
  return sum;
}

auto NvmlReader::list_processes(DeviceState& dev, std::vector<GpuProcess>& out) -> nvml::Return {
  if (api_.device_get_compute_running_processes != nullptr) {
    return list_with<nvml::ProcessInfo>(api_.device_get_compute_running_processes, dev.handle, out);
  }
  if (api_.device_get_compute_running_processes_v1 != nullptr) {
    return list_with<nvml::ProcessInfoV1>(api_.device_get_compute_running_processes_v1, dev.handle, out);
  }
  return nvml::kErrorFunctionNotFound;
}

void NvmlReader::merge_optional_lists(DeviceState& dev, std::vector<GpuProcess>& out) {
  std::vector<GpuProcess> listed;
  const auto query = [&](NvmlQuery q, auto fn) {
    if (!callable(dev, q)) return false;
    if (fn == nullptr) return note(dev, q, nvml::kErrorFunctionNotFound);
    return note(dev, q, list_with<nvml::ProcessInfo>(fn, dev.handle, listed));
  };
  if (query(NvmlQuery::MpsProcesses, api_.device_get_mps_compute_running_processes)) {
    for (const GpuProcess& p : listed) {
      if (GpuProcess* known = find_pid(out, p.pid)) {
        known->mps = true;
      } else {
        out.push_back({.pid = p.pid, .used_memory_bytes = p.used_memory_bytes, .mps = true});
      }
    }
  }
  if (query(NvmlQuery::GraphicsProcesses, api_.device_get_graphics_running_processes)) {
    for (const GpuProcess& p : listed) {
      if (find_pid(out, p.pid) == nullptr)
        out.push_back({.pid = p.pid, .used_memory_bytes = p.used_memory_bytes, .graphics = true});
    }
  }
}

void NvmlReader::read_process_utilization(DeviceState& dev, std::vector<GpuProcess>& out) {
  const NvmlQuery q = NvmlQuery::ProcessUtilization;
  if (!callable(dev, q)) return;
  auto* fn = api_.device_get_process_utilization;
  if (fn == nullptr) {
    (void)note(dev, q, nvml::kErrorFunctionNotFound);
    return;
  }
  std::vector<nvml::ProcessUtilizationSample> samples;
  const unsigned long long since_us = dev.last_seen_util_us;
  nvml::Return rc = sized_call(([&](unsigned int* count, nvml::ProcessUtilizationSample* buffer) {
                                 return fn(dev.handle, buffer, count, since_us);
                               }),
                               samples);
  if (rc == nvml::kErrorNotFound) rc = nvml::kSuccess;  // no sample since `since_us`: every process idle
  if (!note(dev, q, rc)) return;                        // unsupported, lost or a passing failure: unknown
  for (const auto& s : samples) dev.last_seen_util_us = std::max(dev.last_seen_util_us, s.time_stamp);
  const auto pct = process_sm_pct(samples);
  for (GpuProcess& p : out) {
    const auto it = pct.find(p.pid);
    p.sm_pct = it == pct.end() ? 0.0 : it->second;
  }
}

auto NvmlReader::processes(std::uint32_t index) -> core::Result<std::vector<GpuProcess>> {
  DeviceState& dev = devices_.at(index);
  if (dev.lost) return lost_error(index);
  const auto unsupported = [&] {
    const nvml::Return why = dev.caps.failure[static_cast<std::size_t>(NvmlQuery::Processes)];
    return core::fail(core::ErrorCode::Unimplemented, name_of(index) + ": NVML cannot list its processes (" +
                                                          nvml_error_text(api_, why) + ")");
  };
  if (!callable(dev, NvmlQuery::Processes)) return unsupported();
  std::vector<GpuProcess> out;
  const nvml::Return rc = list_processes(dev, out);
  if (!note(dev, NvmlQuery::Processes, rc)) {
    if (dev.lost) return lost_error(index);
    if (dev.caps.of(NvmlQuery::Processes) == QuerySupport::Unsupported) return unsupported();
    return core::fail(
        core::ErrorCode::Unavailable,
        name_of(index) + ": nvmlDeviceGetComputeRunningProcesses failed: " + nvml_error_text(api_, rc));
  }
  merge_optional_lists(dev, out);
  read_process_utilization(dev, out);
  if (dev.lost) return lost_error(index);
  return out;
}

}  // namespace solscope::nvidia
