#include "runtime/options.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>

namespace solscope::app {
namespace {

auto parse_index(std::string_view text) -> std::optional<std::uint32_t> {
  std::uint32_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

}  // namespace

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
