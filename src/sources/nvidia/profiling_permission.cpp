#include "sources/nvidia/detail/profiling_permission.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

#include "core/enum_table.hpp"

namespace solscope::nvidia {
namespace {

// The value after "<key>:" on the line that starts with `key`, blanks trimmed; nullopt when no such line.
auto field(std::string_view text, std::string_view key) -> std::optional<std::string_view> {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (line.size() <= key.size() || line.substr(0, key.size()) != key || line[key.size()] != ':') continue;
    line.remove_prefix(key.size() + 1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
      line.remove_suffix(1);
    return line;
  }
  return std::nullopt;
}

auto read_file(const std::filesystem::path& path) -> std::optional<std::string> {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(text).str();
}

auto has_bit(std::optional<std::uint64_t> mask, int bit) -> bool {
  return mask.has_value() && ((*mask >> bit) & 1U) != 0;
}

auto allowed(std::string reason) -> ProfilingPermission {
  return {.allowed = ProfilingAllowed::Yes, .reason = std::move(reason), .fix = {}};
}

}  // namespace

constexpr core::EnumNames<ProfilingAllowed, 3> kAllowedNames({"yes", "no", "unknown"}, "unknown");

auto to_string(ProfilingAllowed allowed) -> std::string_view {
  return kAllowedNames(allowed);
}

auto profiling_permission_fix() -> std::string {
  return "run solscope as root, or grant it CAP_SYS_ADMIN (or CAP_PERFMON on driver R565 and newer), e.g. "
         "`sudo setcap cap_perfmon,cap_sys_admin+ep $(which solscope)`; or, as admin, allow profiling for "
         "all "
         "users: put `options nvidia NVreg_RestrictProfilingToAdminUsers=0` in a file in /etc/modprobe.d/, "
         "rebuild the initramfs (update-initramfs -u, or dracut -f) and reboot. Without it solscope still "
         "shows "
         "classic utilization, clocks, power and memory, and on Hopper and newer GPUs the GPM SOL figures";
}

auto parse_rm_profiling_admin_only(std::string_view nvidia_params) -> std::optional<bool> {
  const auto value = field(nvidia_params, "RmProfilingAdminOnly");
  if (!value || value->empty()) return std::nullopt;
  if (*value == "1") return true;
  if (*value == "0") return false;
  return std::nullopt;
}

auto parse_cap_eff(std::string_view self_status) -> std::optional<std::uint64_t> {
  const auto value = field(self_status, "CapEff");
  if (!value || value->empty()) return std::nullopt;
  std::uint64_t mask = 0;
  const char* end = value->data() + value->size();
  const auto [ptr, ec] = std::from_chars(value->data(), end, mask, 16);
  if (ec != std::errc{} || ptr != end) return std::nullopt;
  return mask;
}

namespace {

/// `prefix` then "R<major>" ("unknown" for 0). Appends instead of `"R" + std::to_string(...)`, which g++ 12
/// at -O3 flags with a false -Wrestrict inside libstdc++ (GCC bug 105329).
auto driver_text(std::string prefix, int driver_major) -> std::string {
  if (driver_major <= 0) return prefix.append("unknown");
  return prefix.append("R").append(std::to_string(driver_major));
}

}  // namespace

auto evaluate_profiling_permission(const ProfilingFacts& facts) -> ProfilingPermission {
  if (facts.euid == 0) return allowed("running as root");
  const auto caps = facts.self_status ? parse_cap_eff(*facts.self_status) : std::nullopt;
  if (has_bit(caps, kCapSysAdminBit)) return allowed("the process has CAP_SYS_ADMIN");
  const bool perfmon = has_bit(caps, kCapPerfmonBit);
  if (perfmon && facts.driver_major >= kPerfmonMinDriverMajor) {
    return allowed(driver_text("the process has CAP_PERFMON and the driver is ", facts.driver_major));
  }
  const auto admin_only =
      facts.nvidia_params ? parse_rm_profiling_admin_only(*facts.nvidia_params) : std::nullopt;
  if (admin_only.has_value() && !*admin_only) {
    return allowed("profiling is open to all users (RmProfilingAdminOnly: 0)");
  }
  ProfilingPermission verdict{
      .allowed = ProfilingAllowed::Unknown, .reason = {}, .fix = profiling_permission_fix()};
  if (!admin_only.has_value()) {
    verdict.reason =
        facts.nvidia_params
            ? "/proc/driver/nvidia/params has no RmProfilingAdminOnly line"
            : "cannot read /proc/driver/nvidia/params (NVIDIA driver not loaded, or not visible here)";
  } else {
    verdict.allowed = ProfilingAllowed::No;
    verdict.reason =
        "profiling is restricted to admin users (RmProfilingAdminOnly: 1) and the process is not root "
        "and lacks CAP_SYS_ADMIN";
  }
  if (perfmon) {
    verdict.reason +=
        driver_text("; CAP_PERFMON counts only from driver R565 (this driver: ", facts.driver_major);
    verdict.reason += ")";
  }
  return verdict;
}

auto check_profiling_permission(const std::filesystem::path& root, std::uint32_t euid, int driver_major)
    -> ProfilingPermission {
  ProfilingFacts facts;
  facts.nvidia_params = read_file(root / "proc/driver/nvidia/params");
  facts.self_status = read_file(root / "proc/self/status");
  facts.euid = euid;
  facts.driver_major = driver_major;
  return evaluate_profiling_permission(facts);
}

}  // namespace solscope::nvidia
