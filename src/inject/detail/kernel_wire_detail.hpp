// Layout constants shared by the kernel wire's encoder and decoder (docs/kernel-wire.md). Internal.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace solscope::inject::detail {

/// Body bytes of each record type, indexed by RecordBody's alternative (type - 1); the Kernel and Marker
/// entries are 0: their length varies (see kKernelFixedBytes, kMarkerFixedBytes).
inline constexpr std::array<std::size_t, 6> kFixedBodyBytes{8, 20, 16, 0, 16, 0};
/// The wire type of a Kernel and of a Marker record.
inline constexpr std::uint8_t kKernelType = 4;
inline constexpr std::uint8_t kMarkerType = 6;
/// A Kernel body before its name: start, end, correlation (u64 each), device, stream, grid[3], block[3] (u32
/// each), name length (u16).
inline constexpr std::size_t kKernelFixedBytes = 3 * 8 + 8 * 4 + 2;
/// A Marker body before its texts: start, end (u64 each), tid, depth (u32 each), domain length, name length
/// (u16 each); the domain's bytes, then the name's, follow.
inline constexpr std::size_t kMarkerFixedBytes = 2 * 8 + 2 * 4 + 2 * 2;

/// The frame checksum over the header's fields after the magic (bytes 4..11) and the payload: 64-bit
/// multiply-xor (FNV prime and offset basis) in four lanes over little-endian 8-byte words, the header word
/// first, payload word i in lane (i + 1) mod 4, the tail zero-padded; lanes folded in order, then the high
/// and low halves xor'ed.
[[nodiscard]] auto checksum(std::span<const std::uint8_t> header_fields,
                            std::span<const std::uint8_t> payload) -> std::uint32_t;

}  // namespace solscope::inject::detail
