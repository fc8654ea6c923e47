#include "app/options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>

namespace solscope::app {
namespace {

struct UnitScale {
  std::string_view suffix;
  double ns;
};
constexpr UnitScale kUnits[] = {{"ns", 1.0}, {"us", 1e3}, {"ms", 1e6},
                                {"s", 1e9},  {"m", 60e9}, {"h", 3600e9}};

auto bad_duration(std::string_view text) -> tl::unexpected<core::Error> {
  return core::fail(core::ErrorCode::InvalidArgument, "invalid duration '" + std::string(text) + "'",
                    "write a number and a unit: 10ms, 100ms, 1s, 5m");
}

auto parse_index(std::string_view text) -> std::optional<std::uint32_t> {
  std::uint32_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

}  // namespace

auto parse_duration_ns(std::string_view text) -> core::Result<std::int64_t> {
  std::size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) {
    ++digits;
  }
  if (digits == 0) return bad_duration(text);
  double value = 0;
  const std::string number(text.substr(0, digits));
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size()) return bad_duration(text);
  const std::string_view suffix = text.substr(digits);
  double scale = suffix.empty() ? 1e9 : 0.0;
  for (const auto& unit : kUnits) {
    if (unit.suffix == suffix) scale = unit.ns;
  }
  if (scale == 0.0 || !std::isfinite(value * scale) || value * scale > 9e18) return bad_duration(text);
  return static_cast<std::int64_t>(std::llround(value * scale));
}

auto parse_device_list(std::string_view text) -> core::Result<std::vector<std::uint32_t>> {
  std::vector<std::uint32_t> out;
  for (std::size_t begin = 0; begin <= text.size();) {
    const auto comma = std::min(text.find(',', begin), text.size());
    const std::string_view item = text.substr(begin, comma - begin);
    begin = comma + 1;
    const auto dash = item.find('-');
    const auto first = parse_index(item.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : parse_index(item.substr(dash + 1));
    if (!first || !last || *last < *first || *last - *first > 1024) {
      return core::fail(
          core::ErrorCode::InvalidArgument, "invalid device '" + std::string(item) + "'",
          "list GPU indices as shown by `solscope devices`, e.g. --devices 0,2 or --devices 0-3");
    }
    for (std::uint32_t i = *first; i <= *last; ++i) out.push_back(i);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (out.empty()) {
    return core::fail(core::ErrorCode::InvalidArgument, "empty device list", "e.g. --devices 0,2");
  }
  return out;
}

}  // namespace solscope::app
