// Pre-flight check of the privilege GPU performance counters need (CUPTI PM sampling), from procfs, without
// touching the GPU: `solscope devices` prints it and the NVIDIA source skips PM sampling when it says
// "denied".
//
// Rule (NVIDIA's ERR_NVGPUCTRPERM page; docs/design/cupti-pm-sampling.md section 4): since Linux driver
// 418.43 the counters are admin-only unless the nvidia module was loaded with
// NVreg_RestrictProfilingToAdminUsers=0, which /proc/driver/nvidia/params shows as `RmProfilingAdminOnly: 0`.
// Admin means root (euid 0), CAP_SYS_ADMIN, or, from driver R565, CAP_PERFMON. Capability bits from
// linux/capability.h: CAP_SYS_ADMIN 21, CAP_PERFMON 38.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace solscope::nvidia {

/// CAP_SYS_ADMIN's bit in CapEff (linux/capability.h).
inline constexpr int kCapSysAdminBit = 21;
/// CAP_PERFMON's bit in CapEff (linux/capability.h, Linux 5.8+).
inline constexpr int kCapPerfmonBit = 38;
/// The first driver branch that accepts CAP_PERFMON for GPU counters (R565; doc section 4).
inline constexpr int kPerfmonMinDriverMajor = 565;

/// The pre-flight verdict.
enum class ProfilingAllowed : std::uint8_t { Yes, No, Unknown };

/// "yes", "no", "unknown".
[[nodiscard]] auto to_string(ProfilingAllowed allowed) -> std::string_view;

/// Whether this process may read GPU performance counters, why, and how to allow it.
struct ProfilingPermission {
  ProfilingAllowed allowed = ProfilingAllowed::Unknown;
  std::string
      reason;       ///< one lowercase phrase: "running as root", "profiling is restricted to admin users ..."
  std::string fix;  ///< profiling_permission_fix() when not Yes, "" otherwise
};

/// The facts the verdict is made of (procfs texts are passed in whole so that the rule is testable).
struct ProfilingFacts {
  std::optional<std::string>
      nvidia_params;  ///< contents of /proc/driver/nvidia/params; nullopt when unreadable
  std::optional<std::string> self_status;  ///< contents of /proc/self/status; nullopt when unreadable
  std::uint32_t euid = 0;                  ///< effective user id
  int driver_major = 0;                    ///< NVIDIA driver major version (565 for 565.57.01); 0 = unknown
};

/// The fix text: run as root, or grant CAP_SYS_ADMIN (or CAP_PERFMON on R565+) with setcap, or, as admin, set
/// NVreg_RestrictProfilingToAdminUsers=0 in /etc/modprobe.d/, rebuild the initramfs and reboot; and which
/// figures work without it (classic utilization, clocks, power, memory; GPM SOL on Hopper and newer).
[[nodiscard]] auto profiling_permission_fix() -> std::string;

/// `RmProfilingAdminOnly` from the params text: 1 -> true, 0 -> false, nullopt when absent or unparsable.
[[nodiscard]] auto parse_rm_profiling_admin_only(std::string_view nvidia_params) -> std::optional<bool>;

/// The `CapEff:` hex mask from a /proc/<pid>/status text; nullopt when absent or unparsable.
[[nodiscard]] auto parse_cap_eff(std::string_view self_status) -> std::optional<std::uint64_t>;

/// The verdict. Pure. Yes when euid is 0, CapEff has CAP_SYS_ADMIN, CapEff has CAP_PERFMON and the driver is
/// R565+, or RmProfilingAdminOnly is 0; No when RmProfilingAdminOnly is 1 and none of those hold; Unknown
/// when the params file or its line is missing (no driver loaded, or a container without
/// /proc/driver/nvidia).
[[nodiscard]] auto evaluate_profiling_permission(const ProfilingFacts& facts) -> ProfilingPermission;

/// Reads `<root>/proc/driver/nvidia/params` and `<root>/proc/self/status` ("/" on a live system; a fake tree
/// in tests) and evaluates them with `euid` and `driver_major`.
[[nodiscard]] auto check_profiling_permission(const std::filesystem::path& root, std::uint32_t euid,
                                              int driver_major) -> ProfilingPermission;

}  // namespace solscope::nvidia
