// The TCP ports a process listens on, so that an engine whose port was set in a config file is still found.
//
// Source: proc(5) and the kernel's Documentation/networking/proc_net_tcp.rst. `/proc/<pid>/net/tcp` and
// `tcp6` list the sockets of the process's network namespace, one per line: "sl local_address rem_address st
// ... uid timeout inode"; addresses are hex words printed from the kernel's network-order value (%08X of each
// 32-bit word), ports are hex, state 0A is LISTEN. `/proc/<pid>/fd/*` links read "socket:[<inode>]": a socket
// belongs to a process when one of its fds points at that inode (readable by the owner or root only).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace solscope::workload {

/// One listening TCP socket.
struct ListeningSocket {
  std::uint64_t inode = 0;
  std::uint16_t port = 0;
  std::string address;  ///< local address, "0.0.0.0", "127.0.0.1", "::", "::1", ...
  bool ipv6 = false;
  bool reachable_on_loopback = false;  ///< bound to a wildcard or loopback address, so 127.0.0.1/::1 reach it
};

/// The LISTEN sockets of one /proc/net/tcp (ipv6 false) or tcp6 (ipv6 true) text. The header line and
/// malformed lines are skipped. Addresses are decoded byte by byte from the printed words, so the result does
/// not depend on the host's byte order.
[[nodiscard]] auto parse_proc_net_tcp(std::string_view text, bool ipv6) -> std::vector<ListeningSocket>;

/// Socket inodes of the fds of `<procfs_root>/<pid>/fd`, sorted; empty when the directory is unreadable.
[[nodiscard]] auto socket_inodes(const std::filesystem::path& procfs_root, std::int32_t pid)
    -> std::vector<std::uint64_t>;

/// The listening sockets held by any of `pids`, sorted by port, without duplicates (an IPv4 and an IPv6
/// socket on one port count twice). Socket tables come from `<procfs_root>/<pids[0]>/net/tcp{,6}` (the
/// process's network namespace) or, when absent, `<procfs_root>/net/tcp{,6}`.
[[nodiscard]] auto listening_sockets(const std::filesystem::path& procfs_root,
                                     std::span<const std::int32_t> pids) -> std::vector<ListeningSocket>;

}  // namespace solscope::workload
