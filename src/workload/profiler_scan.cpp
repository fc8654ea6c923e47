#include "workload/profiler_scan.hpp"

#include <string.h>  // memmem (glibc)

#include <algorithm>
#include <array>
#include <cstring>
#include <set>
#include <utility>

#include "workload/detail/file_read.hpp"

namespace solscope::workload {
namespace {

/// Library file names (their start: versions and suffixes vary) mapped into a process that Nsight profiles.
constexpr std::array<std::string_view, 4> kNsightInjectionLibraries{
    "libInterceptorInjectionTarget.so",   // Nsight Compute
    "libTreeLauncherTargetInjection.so",  // Nsight Compute
    "libcuda-injection.so",               // Nsight Compute
    "libToolsInjection",  // Nsight Systems: libToolsInjection64.so, ...Cuda64.so, ...Proxy64.so
};
constexpr std::string_view kDcgmProfilingModule = "libdcgmmoduleprofiling.so";

constexpr std::string_view kCudaVisible = "CUDA_VISIBLE_DEVICES";
constexpr std::string_view kCudaOrder = "CUDA_DEVICE_ORDER";
constexpr std::string_view kNvidiaVisible = "NVIDIA_VISIBLE_DEVICES";

auto basename_of(std::string_view path) -> std::string_view {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

/// The entries of a comma-separated list, each trimmed.
auto split_list(std::string_view text) -> std::vector<std::string_view> {
  std::vector<std::string_view> out;
  for (std::size_t begin = 0; begin <= text.size();) {
    const auto comma = std::min(text.find(',', begin), text.size());
    out.push_back(detail::trim(text.substr(begin, comma - begin)));
    begin = comma + 1;
  }
  return out;
}

auto is_index(std::string_view entry, std::int64_t& out) -> bool {
  return detail::parse_int(entry, 0, 1 << 20, out);
}

/// The devices one UUID entry names: its own UUID (or a unique prefix of it), or a GPU's and its instances.
auto devices_of_uuid(std::string_view entry, const std::vector<core::DeviceInfo>& devices)
    -> std::set<std::uint32_t> {
  std::set<std::uint32_t> out;
  for (const auto& d : devices) {
    const bool own = !d.uuid.empty() && std::string_view(d.uuid).starts_with(entry);
    const bool parent = !d.parent_uuid.empty() && std::string_view(d.parent_uuid).starts_with(entry);
    if (own || parent) out.insert(d.index);
  }
  return out;
}

/// The devices of whole GPU `gpu` (its NVML index) and its MIG instances.
auto devices_of_gpu(std::int64_t gpu, const std::vector<core::DeviceInfo>& devices)
    -> std::set<std::uint32_t> {
  std::set<std::uint32_t> out;
  for (const auto& d : devices) {
    if (static_cast<std::int64_t>(d.gpu_number()) == gpu) out.insert(d.index);
  }
  return out;
}

/// NVIDIA_VISIBLE_DEVICES as a device set; nullopt = no narrowing.
auto container_devices(const std::optional<std::string>& value, const std::vector<core::DeviceInfo>& devices)
    -> std::optional<std::set<std::uint32_t>> {
  if (!value) return std::nullopt;
  const std::string_view text = detail::trim(*value);
  if (text.empty() || text == "all" || text == "none" || text == "void") return std::nullopt;
  std::set<std::uint32_t> out;
  for (const std::string_view entry : split_list(text)) {
    std::int64_t gpu = 0;
    // "N:M" (a MIG device of GPU N) is narrowed to GPU N: the instance's own index is not NVML's.
    const std::string_view head = entry.substr(0, entry.find(':'));
    auto found = is_index(head, gpu) ? devices_of_gpu(gpu, devices) : devices_of_uuid(entry, devices);
    if (found.empty()) return std::nullopt;  // an entry we cannot place: assume every device
    out.insert(found.begin(), found.end());
  }
  return out;
}

/// CUDA_VISIBLE_DEVICES as a device set; nullopt = no narrowing.
auto cuda_devices(const VisibilityEnv& env, bool container_narrowed,
                  const std::vector<core::DeviceInfo>& devices) -> std::optional<std::set<std::uint32_t>> {
  if (!env.cuda_visible_devices) return std::nullopt;
  const bool pci_order = env.cuda_device_order && detail::trim(*env.cuda_device_order) == "PCI_BUS_ID";
  const bool any_mig = std::any_of(devices.begin(), devices.end(), [](const auto& d) { return d.is_mig(); });
  std::set<std::uint32_t> out;
  for (const std::string_view entry : split_list(*env.cuda_visible_devices)) {
    std::int64_t ordinal = 0;
    if (is_index(entry, ordinal)) {
      if (!pci_order || container_narrowed || any_mig) return std::nullopt;
      auto found = devices_of_gpu(ordinal, devices);
      if (found.empty()) break;  // CUDA stops at the first invalid entry
      out.insert(found.begin(), found.end());
    } else if (entry.starts_with("GPU-") || entry.starts_with("MIG-")) {
      auto found = devices_of_uuid(entry, devices);
      if (found.empty()) return std::nullopt;
      out.insert(found.begin(), found.end());
    } else {
      break;  // invalid: CUDA ignores it and everything after it
    }
  }
  if (out.empty()) return std::nullopt;
  return out;
}

auto read_text(const std::filesystem::path& path, std::size_t cap) -> std::optional<std::string> {
  auto text = detail::read_file(path, cap);
  if (!text) return std::nullopt;
  return std::move(*text);
}

/// The sighting of one process, if it is one.
auto sight_process(const std::filesystem::path& dir, std::int64_t pid,
                   const std::vector<core::DeviceInfo>& devices, std::string& maps)
    -> std::optional<core::ProfilerSighting> {
  constexpr std::size_t kCmdlineCap = 64u << 10;
  const auto cmdline = read_text(dir / "cmdline", kCmdlineCap);
  if (!cmdline || cmdline->empty()) return std::nullopt;  // gone, unreadable, or a kernel thread
  std::string comm = read_text(dir / "comm", 64).value_or("");
  if (!comm.empty() && comm.back() == '\n') comm.pop_back();
  const std::string_view argv0(cmdline->data(), std::min(cmdline->find('\0'), cmdline->size()));
  ProfilerKind kind = profiler_by_name(comm, basename_of(argv0));
  if (kind == ProfilerKind::kNone) {
    if (!detail::read_file_into(dir / "maps", kMaxMapsBytesPerProcess, maps)) return std::nullopt;
    kind = profiler_in_maps(maps);
  }
  if (kind == ProfilerKind::kNone) return std::nullopt;
  const std::string name = comm.empty() ? std::string(basename_of(argv0)) : comm;
  core::ProfilerSighting sighting;
  sighting.reason =
      kind == ProfilerKind::kDcgmProfiling ? core::PmPauseReason::kDcgm : core::PmPauseReason::kProfiler;
  sighting.what = name + " (pid " + std::to_string(pid) + ")";
  if (kind == ProfilerKind::kNsightInjected) sighting.what += " with Nsight's injection library";
  if (kind == ProfilerKind::kDcgmProfiling) sighting.what += " with DCGM's profiling module";
  if (const auto environ_text = read_text(dir / "environ", kMaxEnvironBytes)) {
    sighting.devices = visible_devices(parse_visibility_env(*environ_text), devices);
  }
  return sighting;
}

}  // namespace

auto profiler_by_name(std::string_view comm, std::string_view argv0) -> ProfilerKind {
  // comm keeps the first 15 bytes: "nv-nsight-cu-cli" reads "nv-nsight-cu-cl".
  for (const std::string_view name : {comm, argv0}) {
    if (name == "ncu" || name == "nv-nsight-cu-cli" || name == "nv-nsight-cu-cl")
      return ProfilerKind::kNsightCompute;
    if (name == "nsys") return ProfilerKind::kNsightSystems;
  }
  return ProfilerKind::kNone;
}

namespace {

/// Whether `text` holds `needle`: glibc's memmem, as `grep -F` searches. A plain find() of "lib..." stops and
/// compares at every "lib" of a maps file, one per line (bench/profiler_scan_bench.cpp).
auto holds(std::string_view text, std::string_view needle) -> bool {
  return ::memmem(text.data(), text.size(), needle.data(), needle.size()) != nullptr;
}

/// Every Nsight injection library's name holds this: maps is searched once for its rare letter 'j' (memchr),
/// and only the lines where "njection" follows are matched against the names (instead of one pass per name).
constexpr std::string_view kInjectionAnchor = "njection";
constexpr std::size_t kAnchorLetterAt = 1;  // the 'j' of kInjectionAnchor

/// Whether a line of maps that holds kInjectionAnchor names one of Nsight's injection libraries.
auto names_injection_library(std::string_view maps, std::size_t at) -> bool {
  const std::size_t newline_before = maps.rfind('\n', at);
  const std::size_t start = newline_before == std::string_view::npos ? 0 : newline_before + 1;
  const std::size_t end = std::min(maps.find('\n', at), maps.size());
  const std::string_view line = maps.substr(start, end - start);
  return std::any_of(
      kNsightInjectionLibraries.begin(), kNsightInjectionLibraries.end(),
      [line](std::string_view library) { return line.find(library) != std::string_view::npos; });
}

}  // namespace

auto profiler_in_maps(std::string_view maps) -> ProfilerKind {
  const char* const begin = maps.data();
  const char* const end = begin + maps.size();
  for (const char* p = begin; p < end;) {
    const void* hit = std::memchr(p, kInjectionAnchor[kAnchorLetterAt], static_cast<std::size_t>(end - p));
    if (hit == nullptr) break;
    const auto j = static_cast<std::size_t>(static_cast<const char*>(hit) - begin);
    if (j >= kAnchorLetterAt &&
        maps.substr(j - kAnchorLetterAt, kInjectionAnchor.size()) == kInjectionAnchor &&
        names_injection_library(maps, j)) {
      return ProfilerKind::kNsightInjected;
    }
    p = begin + j + 1;
  }
  if (holds(maps, kDcgmProfilingModule)) return ProfilerKind::kDcgmProfiling;
  return ProfilerKind::kNone;
}

auto parse_visibility_env(std::string_view environ_text) -> VisibilityEnv {
  constexpr std::array<std::string_view, 3> kKeys{kCudaVisible, kCudaOrder, kNvidiaVisible};
  auto values = environ_values(environ_text, kKeys);
  VisibilityEnv env;
  const auto take = [&values](std::string_view key, std::optional<std::string>& field) {
    if (auto it = values.find(key); it != values.end()) field = std::move(it->second);
  };
  take(kCudaVisible, env.cuda_visible_devices);
  take(kCudaOrder, env.cuda_device_order);
  take(kNvidiaVisible, env.nvidia_visible_devices);
  return env;
}

auto visible_devices(const VisibilityEnv& env, const std::vector<core::DeviceInfo>& devices)
    -> std::vector<std::uint32_t> {
  const auto container = container_devices(env.nvidia_visible_devices, devices);
  const auto cuda = cuda_devices(env, container.has_value(), devices);
  std::set<std::uint32_t> reach;
  for (const auto& d : devices) {
    if ((!container || container->contains(d.index)) && (!cuda || cuda->contains(d.index)))
      reach.insert(d.index);
  }
  if (reach.empty() || reach.size() == devices.size()) return {};
  return {reach.begin(), reach.end()};
}

auto scan_profilers(const std::filesystem::path& procfs_root, const std::vector<core::DeviceInfo>& devices,
                    const std::atomic<bool>* cancel) -> std::vector<core::ProfilerSighting> {
  auto pids = detail::numeric_entries(procfs_root);
  std::sort(pids.begin(), pids.end());
  std::vector<core::ProfilerSighting> seen;
  std::string maps;  // one buffer for every process's maps: no allocation per process
  for (const std::int64_t pid : pids) {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) break;
    if (auto sighting = sight_process(procfs_root / std::to_string(pid), pid, devices, maps)) {
      seen.push_back(std::move(*sighting));
    }
  }
  return seen;
}

}  // namespace solscope::workload
