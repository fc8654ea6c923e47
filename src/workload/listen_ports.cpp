#include "workload/detail/listen_ports.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>

#include "workload/detail/file_read.hpp"

namespace solscope::workload {
namespace {

constexpr std::string_view kListenState = "0A";

auto parse_hex32(std::string_view text, std::uint32_t& out) -> bool {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, 16);
  return ec == std::errc{} && end == text.data() + text.size();
}

/// Splits a line into whitespace-separated fields.
auto fields_of(std::string_view line) -> std::vector<std::string_view> {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

auto all_zero(const unsigned char* begin, const unsigned char* end) -> bool {
  return std::all_of(begin, end, [](unsigned char b) { return b == 0; });
}

/// Whether a socket bound to `bytes` accepts connections to 127.0.0.1 or ::1: wildcard and loopback
/// addresses, including IPv4-mapped IPv6 ones (::ffff:0.0.0.0, ::ffff:127.x.y.z).
auto reachable_on_loopback(const std::array<unsigned char, 16>& bytes, bool ipv6) -> bool {
  const unsigned char* b = bytes.data();
  if (!ipv6) return all_zero(b, b + 4) || b[0] == 127;
  if (all_zero(b, b + 16)) return true;                // ::
  if (all_zero(b, b + 15) && b[15] == 1) return true;  // ::1
  const bool mapped = all_zero(b, b + 10) && b[10] == 0xff && b[11] == 0xff;
  return mapped && (b[12] == 127 || all_zero(b + 12, b + 16));
}

/// Decodes "HEXADDR:HEXPORT" into the socket's address and port; false when malformed.
auto decode_endpoint(std::string_view text, bool ipv6, ListeningSocket& out) -> bool {
  const auto colon = text.find(':');
  const std::size_t words = ipv6 ? 4 : 1;
  if (colon != words * 8) return false;
  std::array<unsigned char, 16> bytes{};
  for (std::size_t w = 0; w < words; ++w) {
    std::uint32_t word = 0;
    if (!parse_hex32(text.substr(w * 8, 8), word)) return false;
    std::memcpy(bytes.data() + w * 4, &word, 4);  // the kernel printed the native view of network-order bytes
  }
  std::uint32_t port = 0;
  if (!parse_hex32(text.substr(colon + 1), port) || port > 65535) return false;
  out.port = static_cast<std::uint16_t>(port);
  std::array<char, INET6_ADDRSTRLEN> name{};
  if (::inet_ntop(ipv6 ? AF_INET6 : AF_INET, bytes.data(), name.data(), name.size()) == nullptr) return false;
  out.address = name.data();
  out.ipv6 = ipv6;
  out.reachable_on_loopback = reachable_on_loopback(bytes, ipv6);
  return true;
}

auto read_table(const std::filesystem::path& procfs_root, std::int32_t pid, std::string_view file, bool ipv6)
    -> std::vector<ListeningSocket> {
  auto text = detail::read_file(procfs_root / std::to_string(pid) / "net" / file);
  if (!text) text = detail::read_file(procfs_root / "net" / file);
  if (!text) return {};
  return parse_proc_net_tcp(*text, ipv6);
}

}  // namespace

auto parse_proc_net_tcp(std::string_view text, bool ipv6) -> std::vector<ListeningSocket> {
  std::vector<ListeningSocket> out;
  while (!text.empty()) {
    const std::string_view line = detail::next_line(text);
    // sl local rem st tx:rx tr:when retrnsmt uid timeout inode
    const std::vector<std::string_view> f = fields_of(line);
    if (f.size() < 10 || f[3] != kListenState) continue;
    ListeningSocket socket;
    std::int64_t inode = 0;
    if (!decode_endpoint(f[1], ipv6, socket) || !detail::parse_int(f[9], 0, INT64_MAX, inode)) continue;
    socket.inode = static_cast<std::uint64_t>(inode);
    out.push_back(std::move(socket));
  }
  return out;
}

auto socket_inodes(const std::filesystem::path& procfs_root, std::int32_t pid) -> std::vector<std::uint64_t> {
  std::vector<std::uint64_t> out;
  const std::filesystem::path fd_dir = procfs_root / std::to_string(pid) / "fd";
  constexpr std::string_view kPrefix = "socket:[";
  for (const std::int64_t fd : detail::numeric_entries(fd_dir)) {
    auto target = detail::read_link(fd_dir / std::to_string(fd));
    if (!target || target->size() <= kPrefix.size() + 1 || target->compare(0, kPrefix.size(), kPrefix) != 0 ||
        target->back() != ']') {
      continue;
    }
    std::int64_t inode = 0;
    const std::string_view digits(target->data() + kPrefix.size(), target->size() - kPrefix.size() - 1);
    if (detail::parse_int(digits, 0, INT64_MAX, inode)) out.push_back(static_cast<std::uint64_t>(inode));
  }
  std::sort(out.begin(), out.end());
  return out;
}

auto listening_sockets(const std::filesystem::path& procfs_root, std::span<const std::int32_t> pids)
    -> std::vector<ListeningSocket> {
  if (pids.empty()) return {};
  std::vector<std::uint64_t> inodes;
  for (const std::int32_t pid : pids) {
    const std::vector<std::uint64_t> own = socket_inodes(procfs_root, pid);
    inodes.insert(inodes.end(), own.begin(), own.end());
  }
  std::sort(inodes.begin(), inodes.end());
  std::vector<ListeningSocket> out;
  for (const bool ipv6 : {false, true}) {
    for (ListeningSocket& socket : read_table(procfs_root, pids.front(), ipv6 ? "tcp6" : "tcp", ipv6)) {
      if (std::binary_search(inodes.begin(), inodes.end(), socket.inode)) out.push_back(std::move(socket));
    }
  }
  std::sort(out.begin(), out.end(), [](const ListeningSocket& a, const ListeningSocket& b) {
    return a.port != b.port ? a.port < b.port : a.ipv6 < b.ipv6;
  });
  out.erase(
      std::unique(out.begin(), out.end(),
                  [](const ListeningSocket& a, const ListeningSocket& b) { return a.inode == b.inode; }),
      out.end());
  return out;
}

}  // namespace solscope::workload
