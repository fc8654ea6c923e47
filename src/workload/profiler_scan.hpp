// Profiler scan: which processes on this node may want the GPUs' exclusive performance counters (the PM
// sampling that solscope gives back to them, core/pm_yield.hpp), read from a procfs tree whose root is a
// parameter ("/proc" in production, a fake tree in tests).
//
// Per process `<root>/<pid>/`: `comm` and the basename of `cmdline`'s first argument name the Nsight tools
// themselves; `maps` names the libraries mapped into it (Nsight's injection libraries, DCGM's profiling
// module); `environ` gives CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER and NVIDIA_VISIBLE_DEVICES only (nothing
// else of the environment is kept). Sources of the names: the file lists of Debian's nsight-compute-target
// (target/linux-desktop-glibc_2_11_3-x64/: ncu, libInterceptorInjectionTarget.so,
// libTreeLauncherTargetInjection.so, libcuda-injection.so; https://packages.debian.org/forky/amd64/
// nsight-compute-target/filelist), nsight-systems-target (target-linux-x64/: libToolsInjection64.so,
// libToolsInjectionCuda64.so, libToolsInjectionProxy64.so, ...; https://packages.debian.org/bullseye/amd64/
// nsight-systems-target/filelist) and nsight-systems (bin/nsys), Ubuntu jammy's nsight-compute
// (/usr/bin/nv-nsight-cu-cli, the CLI's earlier name), and DCGM's module table (DcgmModuleMgr:
// "libdcgmmoduleprofiling.so.4", module 8 "Profiling", loaded lazily when profiling fields are first
// watched: DCGM user guide, "DCGM Modularity").
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/device_info.hpp"
#include "core/pm_yield.hpp"
#include "workload/process_info.hpp"  // kMaxEnvironBytes

namespace solscope::workload {

/// The most of one process's /proc/PID/maps a scan reads (1 MiB, about 10,000 mappings: a PyTorch process
/// maps a few thousand); a library listed past it is not seen.
inline constexpr std::size_t kMaxMapsBytesPerProcess = 1u << 20;

/// What one process is, as far as the counters go.
enum class ProfilerKind : std::uint8_t {
  kNone,            ///< nothing of interest
  kNsightCompute,   ///< the Nsight Compute CLI (`ncu`, `nv-nsight-cu-cli`)
  kNsightSystems,   ///< the Nsight Systems CLI (`nsys`)
  kNsightInjected,  ///< a program with an Nsight injection library mapped (the profiled process)
  kDcgmProfiling,   ///< a DCGM host engine (nv-hostengine, or dcgm-exporter's embedded one) with its
                    ///< profiling module mapped
};

/// The Nsight tool named by a process's kernel name `comm` (15 characters at most, proc(5)) or by the
/// basename of its first argument; kNone for any other name. Pure.
[[nodiscard]] auto profiler_by_name(std::string_view comm, std::string_view argv0) -> ProfilerKind;

/// kNsightInjected or kDcgmProfiling when the text of a /proc/PID/maps names one of their libraries (by file
/// name, any directory and version suffix); kNone otherwise. Pure.
[[nodiscard]] auto profiler_in_maps(std::string_view maps) -> ProfilerKind;

/// The visibility variables of one process's environment (nullopt: not set).
struct VisibilityEnv {
  std::optional<std::string> cuda_visible_devices;    ///< CUDA_VISIBLE_DEVICES
  std::optional<std::string> cuda_device_order;       ///< CUDA_DEVICE_ORDER
  std::optional<std::string> nvidia_visible_devices;  ///< NVIDIA_VISIBLE_DEVICES (container toolkit)
};

/// Reads only the three keys of VisibilityEnv from the NUL-separated text of /proc/PID/environ
/// (environ_values: the first of a repeated key counts, as the C library finds it). Pure.
[[nodiscard]] auto parse_visibility_env(std::string_view environ_text) -> VisibilityEnv;

/// The indices of `devices` a process with `env` can reach; empty = every device (also whenever that cannot
/// be told for sure, so that a profiler is never left blocked by a guess). Rules, after the CUDA
/// Programming Guide, "CUDA Environment Variables", and the NVIDIA Container Toolkit's
/// NVIDIA_VISIBLE_DEVICES:
/// - NVIDIA_VISIBLE_DEVICES (absent, empty, "all", "none", "void": no narrowing) lists NVML indices of whole
///   GPUs or "GPU-"/"MIG-" UUIDs; a GPU includes its MIG instances.
/// - CUDA_VISIBLE_DEVICES lists UUIDs (a unique prefix such as "GPU-8932f937" is enough; "MIG-..." names an
///   instance) or CUDA ordinals; CUDA stops at the first invalid entry. An ordinal is an NVML index only
///   when CUDA_DEVICE_ORDER=PCI_BUS_ID, NVIDIA_VISIBLE_DEVICES did not narrow and no device is a MIG
///   instance (CUDA's default order is FASTEST_FIRST, and NVML's index may differ from CUDA's); otherwise
///   every device.
/// - An entry that names no device of `devices`, or an empty result, gives every device. Pure.
[[nodiscard]] auto visible_devices(const VisibilityEnv& env, const std::vector<core::DeviceInfo>& devices)
    -> std::vector<std::uint32_t>;

/// One scan of `procfs_root`: a sighting for every process that is an Nsight CLI (reason kProfiler), has an
/// Nsight injection library mapped (kProfiler), or has DCGM's profiling module mapped (kDcgm), with the
/// devices it can reach (visible_devices over its environ; every device when that is unreadable). `what` is
/// "ncu (pid 4242)", "python3 (pid 77) with Nsight's injection library", "nv-hostengine (pid 17) with DCGM's
/// profiling module". A process that cannot be read (gone, or another user's without privilege) is skipped
/// without a word; kernel threads (empty cmdline) are skipped. Work per process: comm, cmdline, at most
/// kMaxMapsBytesPerProcess of maps (not read for an Nsight CLI found by name) and, for a sighting,
/// kMaxEnvironBytes (process_info.hpp) of environ. `cancel` (may be null), when set, ends the scan before the
/// next process (what it found so far is returned). Never fails.
[[nodiscard]] auto scan_profilers(const std::filesystem::path& procfs_root,
                                  const std::vector<core::DeviceInfo>& devices,
                                  const std::atomic<bool>* cancel = nullptr)
    -> std::vector<core::ProfilerSighting>;

}  // namespace solscope::workload
