#include "core/duration.hpp"

#include <charconv>
#include <cmath>
#include <iterator>
#include <string>

#include "core/units.hpp"

namespace solscope::core {
namespace {

struct UnitScale {
  std::string_view suffix;
  std::int64_t ns;
};
constexpr UnitScale kUnits[] = {{"ns", 1},      {"us", kNsPerUs}, {"ms", kNsPerMs},
                                {"s", kNsPerS}, {"m", kNsPerMin}, {"h", kNsPerHour}};

auto bad_duration(std::string_view text) -> core::Unexpected<Error> {
  return fail(ErrorCode::InvalidArgument, "invalid duration '" + std::string(text) + "'",
              "write a number and a unit (ns, us, ms, s, m, h): 10ms, 0.5s, 5m; no unit means seconds");
}

/// Length of the leading DIGITS [. DIGITS] of `text`; 0 when it does not start with a digit.
auto number_length(std::string_view text) -> std::size_t {
  std::size_t n = 0;
  auto digits = [&] {
    const std::size_t start = n;
    while (n < text.size() && text[n] >= '0' && text[n] <= '9') ++n;
    return n - start;
  };
  if (digits() == 0) return 0;
  if (n < text.size() && text[n] == '.') {
    ++n;
    if (digits() == 0) return 0;
  }
  return n;
}

}  // namespace

auto parse_duration_ns(std::string_view text) -> Result<std::int64_t> {
  const std::size_t length = number_length(text);
  if (length == 0) return bad_duration(text);
  const std::string_view suffix = text.substr(length);
  std::int64_t scale = suffix.empty() ? kNsPerS : 0;
  for (const auto& unit : kUnits) {
    if (unit.suffix == suffix) scale = unit.ns;
  }
  if (scale == 0) return bad_duration(text);
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + length, value);
  if (ec != std::errc() || end != text.data() + length) return bad_duration(text);
  const double ns = value * static_cast<double>(scale);
  if (!std::isfinite(ns) || ns > static_cast<double>(kMaxDurationNs)) return bad_duration(text);
  return static_cast<std::int64_t>(std::llround(ns));
}

auto format_duration(std::int64_t ns) -> std::string {
  if (ns == 0) return "0s";
  for (auto unit = std::rbegin(kUnits); unit != std::rend(kUnits); ++unit) {  // the largest unit first
    if (ns % unit->ns == 0) return std::to_string(ns / unit->ns) + std::string(unit->suffix);
  }
  return std::to_string(ns) + "ns";  // unreachable: 1 ns divides every duration
}

}  // namespace solscope::core
