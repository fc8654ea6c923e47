// Parsing of the common option values: durations ("100ms") and device lists ("0,2-3").
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace solscope::app {

/// Parses a duration: a decimal number followed by ns, us, ms, s, m or h ("100ms", "0.5s", "2m"); a bare
/// number means seconds. Errors: InvalidArgument naming the text and the accepted forms.
[[nodiscard]] auto parse_duration_ns(std::string_view text) -> core::Result<std::int64_t>;

/// Parses a device list: comma-separated NVML indices and ranges ("0,2", "0-3", "1,4-5"), sorted, duplicates
/// removed. Errors: InvalidArgument naming the bad element.
[[nodiscard]] auto parse_device_list(std::string_view text) -> core::Result<std::vector<std::uint32_t>>;

/// Smallest and largest accepted sampling interval (1 ms and 60 s): below 1 ms the PM hardware buffer and the
/// decode thread cannot keep up (docs/design/cupti-pm-sampling.md section 1.4).
inline constexpr std::int64_t kMinIntervalNs = 1'000'000;
inline constexpr std::int64_t kMaxIntervalNs = 60'000'000'000;

}  // namespace solscope::app
