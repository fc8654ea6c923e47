// The one duration grammar of solscope: command-line options (--interval, --duration), the config file,
// SOLSCOPE_* variables and the HTTP API's query parameters (window=, since=-...) all parse with it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace solscope::core {

/// Largest duration parse_duration_ns accepts: 1,000,000 hours (3.6e18 ns, well inside int64).
inline constexpr std::int64_t kMaxDurationNs = 1'000'000 * (3'600LL * 1'000'000'000LL);

/// Parses a duration. Grammar: DIGITS [ "." DIGITS ] [ UNIT ], UNIT one of ns, us, ms, s, m, h; no unit means
/// seconds ("100ms", "0.5s", "2m", "1h", "30" = 30 s). No sign, exponent, space, NaN or infinity. The result
/// is rounded to the nearest ns and is 0 to kMaxDurationNs. Errors: InvalidArgument naming the text and the
/// accepted forms.
[[nodiscard]] auto parse_duration_ns(std::string_view text) -> Result<std::int64_t>;

/// "1ms", "60s" -> "1m", "1000000h": `ns` in the largest unit that divides it; "0s" for 0. The inverse of
/// parse_duration_ns for whole units, used wherever a duration is shown as the user would write it.
[[nodiscard]] auto format_duration(std::int64_t ns) -> std::string;

}  // namespace solscope::core
