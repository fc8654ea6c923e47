#include "workload/process_info.hpp"

#include <pwd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <string>
#include <utility>

#include "core/text.hpp"
#include "workload/detail/file_read.hpp"

namespace solscope::workload {
namespace {

constexpr std::size_t kContainerIdChars = 64;
constexpr std::size_t kPodUidChars = 36;  // 8-4-4-4-12 hex digits with separators

auto is_hex(std::string_view text) -> bool {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) != 0;
  });
}

/// A container id in one path component ("<64 hex>" or "<runtime>-<64 hex>.scope"), or empty.
auto container_id_of(std::string_view component) -> std::string {
  if (component.size() > 6 && component.substr(component.size() - 6) == ".scope") {
    component.remove_suffix(6);
  }
  if (component.find("conmon") != std::string_view::npos) return {};
  static constexpr std::array<std::string_view, 5> kPrefixes = {"docker-", "cri-containerd-", "crio-",
                                                                "libpod-", "containerd-"};
  for (const std::string_view prefix : kPrefixes) {
    if (component.substr(0, prefix.size()) == prefix) {
      component.remove_prefix(prefix.size());
      break;
    }
  }
  if (component.size() == kContainerIdChars && is_hex(component)) return core::to_lower_ascii(component);
  return {};
}

/// A pod UID in one path component ("pod<uid>" or "kubepods-<qos>-pod<uid_underscored>.slice"), or empty.
auto pod_uid_of(std::string_view component) -> std::string {
  static constexpr std::array<std::size_t, 4> kDashes = {8, 13, 18, 23};
  // "kubepods-...-pod<uid>" holds "pod" twice: try every occurrence.
  for (auto at = component.find("pod"); at != std::string_view::npos; at = component.find("pod", at + 1)) {
    if (component.size() < at + 3 + kPodUidChars) break;
    std::string uid(component.substr(at + 3, kPodUidChars));
    std::replace(uid.begin(), uid.end(), '_', '-');
    bool valid = true;
    for (std::size_t i = 0; i < uid.size() && valid; ++i) {
      const bool dash = std::find(kDashes.begin(), kDashes.end(), i) != kDashes.end();
      valid = dash ? uid[i] == '-' : std::isxdigit(static_cast<unsigned char>(uid[i])) != 0;
    }
    if (valid) return core::to_lower_ascii(uid);
  }
  return {};
}

auto field_after(std::string_view line, std::string_view key) -> std::string_view {
  if (line.substr(0, key.size()) != key) return {};
  return detail::trim(line.substr(key.size()));
}

}  // namespace

auto parse_cgroup(std::string_view text) -> CgroupIds {
  CgroupIds best;
  while (!text.empty()) {
    const std::string_view line = detail::next_line(text);
    const auto second_colon = line.find(':', line.find(':') + 1);
    if (line.find(':') == std::string_view::npos || second_colon == std::string_view::npos) continue;
    std::string_view path = line.substr(second_colon + 1);
    CgroupIds ids;
    while (!path.empty()) {
      const auto slash = path.find('/');
      const std::string_view component = path.substr(0, slash);
      path = slash == std::string_view::npos ? std::string_view{} : path.substr(slash + 1);
      if (std::string id = container_id_of(component); !id.empty()) ids.container_id = std::move(id);
      if (std::string uid = pod_uid_of(component); !uid.empty()) ids.pod_uid = std::move(uid);
    }
    if (best.container_id.empty() && !ids.container_id.empty()) best.container_id = ids.container_id;
    if (best.pod_uid.empty() && !ids.pod_uid.empty()) best.pod_uid = ids.pod_uid;
    if (!best.container_id.empty() && !best.pod_uid.empty()) break;
  }
  return best;
}

auto parse_status(std::string_view text) -> StatusFields {
  StatusFields out;
  while (!text.empty()) {
    const std::string_view line = detail::next_line(text);
    std::int64_t value = 0;
    if (const auto name = field_after(line, "Name:"); !name.empty()) {
      out.name = std::string(name);
    } else if (const auto ppid = field_after(line, "PPid:"); !ppid.empty()) {
      if (detail::parse_int(ppid, 0, INT32_MAX, value)) out.parent_pid = static_cast<std::int32_t>(value);
    } else if (const auto uids = field_after(line, "Uid:"); !uids.empty()) {
      const std::string_view real = uids.substr(0, uids.find_first_of(" \t"));
      if (detail::parse_int(real, 0, UINT32_MAX, value)) out.uid = static_cast<std::uint32_t>(value);
    }
  }
  return out;
}

auto split_nul(std::string_view text) -> std::vector<std::string> {
  std::vector<std::string> out;
  while (!text.empty()) {
    const auto nul = text.find('\0');
    out.emplace_back(text.substr(0, nul));
    if (nul == std::string_view::npos) break;
    text.remove_prefix(nul + 1);
  }
  while (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

auto join_command(const std::vector<std::string>& args) -> std::string {
  std::string out;
  for (const std::string& arg : args) {
    if (!out.empty()) out += ' ';
    out += arg;
  }
  return out;
}

auto system_user_name(std::uint32_t uid) -> std::string {
  passwd entry{};
  passwd* found = nullptr;
  std::array<char, 4096> buffer{};
  if (::getpwuid_r(static_cast<uid_t>(uid), &entry, buffer.data(), buffer.size(), &found) == 0 &&
      found != nullptr && found->pw_name != nullptr) {
    return found->pw_name;
  }
  return std::to_string(uid);
}

auto memoized_user_names(UserNameLookup lookup) -> UserNameLookup {
  if (!lookup) return {};
  return [lookup = std::move(lookup),
          names = std::map<std::uint32_t, std::string>()](std::uint32_t uid) mutable -> std::string {
    auto it = names.find(uid);
    if (it == names.end()) it = names.emplace(uid, lookup(uid)).first;
    return it->second;
  };
}

auto read_process_info(const std::filesystem::path& procfs_root, std::int32_t pid,
                       const UserNameLookup& user_name) -> ProcessInfo {
  ProcessInfo info;
  info.pid = pid;
  const std::filesystem::path dir = procfs_root / std::to_string(pid);
  auto note = [&info](std::string_view file, const core::Error& error) {
    info.problems.push_back(std::string(file) + ": " + std::string(core::to_string(error.code)));
  };
  if (auto cmdline = detail::read_file(dir / "cmdline")) {
    info.args = split_nul(*cmdline);
    info.command = join_command(info.args);
  } else {
    note("cmdline", cmdline.error());
  }
  if (auto status = detail::read_file(dir / "status")) {
    StatusFields fields = parse_status(*status);
    info.name = std::move(fields.name);
    info.parent_pid = fields.parent_pid;
    info.uid = fields.uid;
    if (info.uid && user_name) info.user = user_name(*info.uid);
  } else {
    note("status", status.error());
  }
  if (auto cgroup = detail::read_file(dir / "cgroup")) {
    CgroupIds ids = parse_cgroup(*cgroup);
    info.container_id = std::move(ids.container_id);
    info.pod_uid = std::move(ids.pod_uid);
  } else {
    note("cgroup", cgroup.error());
  }
  return info;
}

auto read_environ(const std::filesystem::path& procfs_root, std::int32_t pid) -> std::vector<std::string> {
  auto text = detail::read_file(procfs_root / std::to_string(pid) / "environ");
  if (!text) return {};
  return split_nul(*text);
}

auto environ_values(std::string_view environ_text, std::span<const std::string_view> keys)
    -> std::map<std::string, std::string, std::less<>> {
  std::map<std::string, std::string, std::less<>> out;
  while (!environ_text.empty() && out.size() < keys.size()) {
    const auto nul = std::min(environ_text.find('\0'), environ_text.size());
    const std::string_view entry = environ_text.substr(0, nul);
    environ_text.remove_prefix(std::min(nul + 1, environ_text.size()));
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = entry.substr(0, eq);
    if (std::find(keys.begin(), keys.end(), key) == keys.end() || out.contains(key)) continue;
    out.emplace(std::string(key), std::string(entry.substr(eq + 1)));
  }
  return out;
}

auto read_environ_keys(const std::filesystem::path& procfs_root, std::int32_t pid,
                       std::span<const std::string_view> keys)
    -> core::Result<std::map<std::string, std::string, std::less<>>> {
  auto text = detail::read_file(procfs_root / std::to_string(pid) / "environ", kMaxEnvironBytes);
  if (!text) return core::fail(text.error());
  return environ_values(*text, keys);
}

auto env_value(const std::vector<std::string>& environ, std::string_view key) -> std::optional<std::string> {
  for (const std::string& entry : environ) {
    if (entry.size() > key.size() && entry.compare(0, key.size(), key) == 0 && entry[key.size()] == '=') {
      return entry.substr(key.size() + 1);
    }
  }
  return std::nullopt;
}

auto child_pids(const std::filesystem::path& procfs_root, std::int32_t pid) -> std::vector<std::int32_t> {
  std::vector<std::int32_t> out;
  for (const std::int64_t candidate : detail::numeric_entries(procfs_root)) {
    if (candidate <= 0 || candidate > INT32_MAX) continue;
    auto status = detail::read_file(procfs_root / std::to_string(candidate) / "status", 4096);
    if (status && parse_status(*status).parent_pid == pid)
      out.push_back(static_cast<std::int32_t>(candidate));
  }
  std::sort(out.begin(), out.end());
  return out;
}

auto descendant_pids(const std::filesystem::path& procfs_root, std::int32_t pid)
    -> std::vector<std::int32_t> {
  std::vector<std::pair<std::int32_t, std::int32_t>> parent_of;  // (parent, child)
  for (const std::int64_t candidate : detail::numeric_entries(procfs_root)) {
    if (candidate <= 0 || candidate > INT32_MAX) continue;
    auto status = detail::read_file(procfs_root / std::to_string(candidate) / "status", 4096);
    if (status)
      parent_of.emplace_back(parse_status(*status).parent_pid, static_cast<std::int32_t>(candidate));
  }
  std::sort(parent_of.begin(), parent_of.end());
  std::vector<std::int32_t> out{pid};
  for (std::size_t next = 0; next < out.size(); ++next) {
    const auto first =
        std::lower_bound(parent_of.begin(), parent_of.end(), std::make_pair(out[next], INT32_MIN));
    for (auto it = first; it != parent_of.end() && it->first == out[next]; ++it) {
      if (std::find(out.begin(), out.end(), it->second) == out.end()) out.push_back(it->second);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace solscope::workload
