// Process attribution: who runs a GPU process, with which command line, in which container or Kubernetes pod.
//
// Everything is read from a procfs tree whose root is a parameter ("/proc" in production, a fake tree in
// tests):
// `<root>/<pid>/cmdline` (arguments separated by NUL), `status` (Name, PPid, Uid lines), `cgroup` (one
// "hierarchy-id:controllers:path" line per hierarchy; cgroup v2 has the single line "0::path") and `environ`.
// Source: proc(5) and the kernel's Documentation/admin-guide/cgroup-v2.rst. A file that is missing or
// unreadable (another user's process without privilege) leaves its fields empty and is noted in `problems`:
// one unreadable process never stops the others from being attributed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace solscope::workload {

/// One process as procfs shows it. Unknown numbers are 0 or nullopt, unknown strings empty.
struct ProcessInfo {
  std::int32_t pid = 0;
  std::int32_t parent_pid = 0;       ///< `PPid` of status; 0 when unknown (or for init)
  std::optional<std::uint32_t> uid;  ///< real uid (first field of the `Uid` line)
  std::string user;               ///< user name; the uid in decimal when it has no name; empty when unknown
  std::string name;               ///< `Name` of status: the kernel's 15-character comm
  std::vector<std::string> args;  ///< cmdline split at NUL; empty for kernel threads or when unreadable
  std::string command;            ///< args joined by spaces, for display
  std::string container_id;       ///< 64 lowercase hex digits (docker, containerd, cri-o, podman), or empty
  std::string pod_uid;            ///< Kubernetes pod UID in its dashed 8-4-4-4-12 form, or empty
  std::vector<std::string>
      problems;  ///< one phrase per file that could not be read, e.g. "status: permission denied"
};

/// Container and pod identity found in a cgroup file.
struct CgroupIds {
  std::string container_id;  ///< 64 lowercase hex digits, or empty
  std::string pod_uid;       ///< dashed pod UID, or empty
};

/// Finds the container id and Kubernetes pod UID in the text of /proc/<pid>/cgroup (v1 or v2).
///
/// Recognised path components (the container runtimes' and kubelet's naming, as seen in their cgroup paths):
/// a bare 64-hex id (`/docker/<id>`, cgroupfs-driver kubepods `/kubepods/<qos>/pod<uid>/<id>`), and
/// `<prefix>-<id>.scope` with prefix docker, cri-containerd, crio or libpod (systemd driver). Podman's
/// monitor scope `libpod-conmon-<id>.scope` is not a container. Pod UIDs come from `pod<uid>` components,
/// where the systemd driver writes the UID with underscores
/// (`kubepods-besteffort-pod<uid_with_underscores>.slice`); they are returned with dashes. The deepest match
/// of the first line that has one wins.
[[nodiscard]] auto parse_cgroup(std::string_view text) -> CgroupIds;

/// Fields of /proc/<pid>/status that attribution needs.
struct StatusFields {
  std::string name;
  std::int32_t parent_pid = 0;
  std::optional<std::uint32_t> uid;
};

/// Parses the `Name:`, `PPid:` and `Uid:` lines of /proc/<pid>/status; missing or malformed lines leave the
/// field at its default.
[[nodiscard]] auto parse_status(std::string_view text) -> StatusFields;

/// Splits a NUL-separated procfs file (cmdline, environ). Trailing empty entries (setproctitle pads the
/// argument area with NULs) are dropped; empty entries in the middle are kept.
[[nodiscard]] auto split_nul(std::string_view text) -> std::vector<std::string>;

/// Joins arguments with single spaces, for display.
[[nodiscard]] auto join_command(const std::vector<std::string>& args) -> std::string;

/// Maps a uid to a user name; returns the uid in decimal when the uid has no name.
using UserNameLookup = std::function<std::string(std::uint32_t uid)>;

/// The system's user name for a uid (getpwuid_r(3), i.e. /etc/passwd or NSS); the uid in decimal when
/// unknown. Thread-safe.
[[nodiscard]] auto system_user_name(std::uint32_t uid) -> std::string;

/// `lookup` with each uid's answer kept: the first call for a uid asks `lookup`, later ones answer from
/// memory. For one refresh (NSS reads /etc/passwd or asks a directory service on every getpwuid_r call); not
/// thread-safe (one refresh's thread). An empty `lookup` gives an empty one.
[[nodiscard]] auto memoized_user_names(UserNameLookup lookup) -> UserNameLookup;

/// Attributes one process from `<procfs_root>/<pid>/`. Never fails: unreadable files leave fields empty and
/// add a phrase to `problems`. `user_name` may be empty (then `user` stays empty).
[[nodiscard]] auto read_process_info(const std::filesystem::path& procfs_root, std::int32_t pid,
                                     const UserNameLookup& user_name) -> ProcessInfo;

/// The most of one process's /proc/PID/environ any reader takes (256 KiB; Linux caps the whole argument and
/// environment area of a new program at a quarter of its stack limit, 2 MiB by default: execve(2)). An entry
/// past it is not seen.
inline constexpr std::size_t kMaxEnvironBytes = 256u << 10;

/// The values of `keys` in the NUL-separated "KEY=VALUE" text of /proc/PID/environ: a key that is absent (or
/// an entry without '=') is absent from the result; when a key appears twice the first wins, as the C
/// library's lookup (getenv, POSIX) finds it. Nothing else of the text is copied. Pure.
[[nodiscard]] auto environ_values(std::string_view environ_text, std::span<const std::string_view> keys)
    -> std::map<std::string, std::string, std::less<>>;

/// Reads at most kMaxEnvironBytes of `<procfs_root>/<pid>/environ` and keeps only `keys` (environ_values):
/// the rest of the environment is dropped with the read buffer. Errors: NotFound (the process is gone),
/// PermissionDenied (environ is readable only by the owner or root: proc(5)), Unavailable, each naming the
/// file.
[[nodiscard]] auto read_environ_keys(const std::filesystem::path& procfs_root, std::int32_t pid,
                                     std::span<const std::string_view> keys)
    -> core::Result<std::map<std::string, std::string, std::less<>>>;

/// The environment of a process as "KEY=VALUE" entries (/proc/<pid>/environ, readable only by the owner or
/// root); empty when unreadable.
[[nodiscard]] auto read_environ(const std::filesystem::path& procfs_root, std::int32_t pid)
    -> std::vector<std::string>;

/// The value of `key` in "KEY=VALUE" entries; nullopt when absent.
[[nodiscard]] auto env_value(const std::vector<std::string>& environ, std::string_view key)
    -> std::optional<std::string>;

/// Processes whose parent is `pid`, found by scanning `<procfs_root>/<n>/status` for every numeric n.
/// Unreadable entries are skipped. Cost: one small read per process on the machine.
[[nodiscard]] auto child_pids(const std::filesystem::path& procfs_root, std::int32_t pid)
    -> std::vector<std::int32_t>;

/// `pid` and every process below it (children, their children, ...), from one scan of
/// `<procfs_root>/<n>/status` (PPid), ascending. Processes that exit during the scan may be missing; a
/// `pid` that does not exist gives just {pid}.
[[nodiscard]] auto descendant_pids(const std::filesystem::path& procfs_root, std::int32_t pid)
    -> std::vector<std::int32_t>;

}  // namespace solscope::workload
