#include "trace/detail/columns.hpp"

#include <bit>
#include <cstdint>
#include <cstring>

namespace solscope::trace::detail {
namespace {

using core::SolSample;

#define SOLSCOPE_TRACE_FIGURE_SPEC(name, expr) {#name, [](const SolSample& s) -> double { return expr; }},
constexpr std::array<FigureColumnSpec, kFigureColumnCount> kFigureColumns{
    {SOLSCOPE_TRACE_FIGURE_COLUMNS(SOLSCOPE_TRACE_FIGURE_SPEC)}};
#undef SOLSCOPE_TRACE_FIGURE_SPEC

auto to_little_endian(std::uint64_t bits) -> std::uint64_t {
  if constexpr (std::endian::native == std::endian::little) {
    return bits;
  } else {
    std::uint64_t swapped = 0;
    for (int i = 0; i < 8; ++i) swapped |= ((bits >> (8 * i)) & 0xffu) << (8 * (7 - i));
    return swapped;
  }
}

}  // namespace

auto figure_columns() -> std::span<const FigureColumnSpec, kFigureColumnCount> {
  return kFigureColumns;
}

void encode_raw(const std::array<double, core::kMetricCount>& values,
                std::array<unsigned char, core::kMetricCount * kRawValueBytes>& out) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(out.data(), values.data(), out.size());
  } else {
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto bits = to_little_endian(std::bit_cast<std::uint64_t>(values[i]));
      std::memcpy(out.data() + i * kRawValueBytes, &bits, kRawValueBytes);
    }
  }
}

auto decode_raw_value(const unsigned char* bytes) -> double {
  std::uint64_t bits = 0;
  std::memcpy(&bits, bytes, kRawValueBytes);
  return std::bit_cast<double>(to_little_endian(bits));
}

}  // namespace solscope::trace::detail
