#include "trace/detail/wal_probe.hpp"

#include <array>
#include <cstring>
#include <fstream>
#include <vector>

#include "trace/detail/file_probe.hpp"

namespace solscope::trace::detail {
namespace {

// Layout, fileformat.html section 4.1: a 32-byte header, then frames of a 24-byte header and one page.
constexpr std::size_t kWalHeaderBytes = 32;
constexpr std::size_t kFrameHeaderBytes = 24;
constexpr std::uint32_t kMagicLittle = 0x377f0682;  // checksums over little-endian words
constexpr std::uint32_t kMagicBig = 0x377f0683;     // over big-endian words
constexpr std::uint32_t kWalVersion = 3007000;

auto little_endian_u32(const unsigned char* p) -> std::uint32_t {
  return (std::uint32_t{p[3]} << 24) | (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[1]} << 8) | p[0];
}

/// The running checksum of section 4.1: over pairs of 32-bit words, each sum feeding the other.
struct Checksum {
  std::uint32_t s0 = 0;
  std::uint32_t s1 = 0;
  bool big_endian = false;

  void add(const unsigned char* data, std::size_t bytes) {
    for (std::size_t i = 0; i + 8 <= bytes; i += 8) {
      const std::uint32_t x0 = big_endian ? big_endian_u32(data + i) : little_endian_u32(data + i);
      const std::uint32_t x1 = big_endian ? big_endian_u32(data + i + 4) : little_endian_u32(data + i + 4);
      s0 += x0 + s1;
      s1 += x1 + s0;
    }
  }
  [[nodiscard]] auto matches(const unsigned char* stored) const -> bool {
    return big_endian_u32(stored) == s0 && big_endian_u32(stored + 4) == s1;
  }
};

auto valid_page_size(std::uint32_t bytes) -> bool {
  return bytes >= 512 && bytes <= 65536 && (bytes & (bytes - 1)) == 0;
}

}  // namespace

auto probe_wal(const std::filesystem::path& wal_path) -> std::optional<WalDamage> {
  std::ifstream in(wal_path, std::ios::binary);
  std::array<unsigned char, kWalHeaderBytes> header{};
  if (!in || !in.read(reinterpret_cast<char*>(header.data()), header.size())) return std::nullopt;
  const std::uint32_t magic = big_endian_u32(header.data());
  const std::uint32_t page_bytes = big_endian_u32(header.data() + 8);
  if ((magic != kMagicLittle && magic != kMagicBig) || !valid_page_size(page_bytes)) {
    return std::nullopt;  // not a log SQLite would read at all: it holds no frames to lose
  }
  Checksum sum{.big_endian = magic == kMagicBig};
  sum.add(header.data(), 24);
  WalDamage damage;
  damage.header_damaged =
      !sum.matches(header.data() + 24) || big_endian_u32(header.data() + 4) != kWalVersion;
  bool rejected = damage.header_damaged;
  std::vector<unsigned char> frame(kFrameHeaderBytes + page_bytes);
  for (std::uint64_t index = 0;
       in.read(reinterpret_cast<char*>(frame.data()), static_cast<std::streamsize>(frame.size())); ++index) {
    const bool ours = std::memcmp(frame.data() + 8, header.data() + 16, 8) == 0;  // salt-1 and salt-2
    const bool commit = big_endian_u32(frame.data() + 4) != 0;
    if (!rejected) {
      Checksum next = sum;
      next.add(frame.data(), 8);
      next.add(frame.data() + kFrameHeaderBytes, page_bytes);
      if (ours && next.matches(frame.data() + 16)) {
        sum = next;
        if (commit) ++damage.applied_commits;
        continue;
      }
      rejected = true;
      damage.first_bad_frame = index;
      damage.first_bad_offset_bytes = kWalHeaderBytes + index * frame.size();
    }
    if (!ours) continue;  // a frame left from an earlier generation of the log: SQLite never applies it
    ++damage.lost_frames;
    if (commit) ++damage.lost_commits;
  }
  if (damage.lost_commits == 0) return std::nullopt;
  return damage;
}

}  // namespace solscope::trace::detail
