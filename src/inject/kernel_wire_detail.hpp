// Layout constants shared by the kernel wire's encoder and decoder (docs/kernel-wire.md). Internal.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace solscope::inject::detail {

/// Body bytes of each record type, indexed by RecordBody's alternative (type - 1); the Kernel entry is its
/// fixed part only (see kKernelFixedBytes).
inline constexpr std::array<std::size_t, 5> kFixedBodyBytes{8, 20, 16, 0, 16};
/// A Kernel body before its name: start, end, correlation (u64 each), device, stream, grid[3], block[3] (u32
/// each), name length (u16).
inline constexpr std::size_t kKernelFixedBytes = 3 * 8 + 8 * 4 + 2;

/// FNV-1a (32 bit) over the frame header's fields after the magic (bytes 4..11) and the payload.
[[nodiscard]] auto checksum(std::span<const std::uint8_t> header_fields,
                            std::span<const std::uint8_t> payload) -> std::uint32_t;

}  // namespace solscope::inject::detail
