// Parsing of the common option values: device lists ("0,2-3"); durations ("100ms") parse in core.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/duration.hpp"
#include "core/result.hpp"
#include "core/units.hpp"

namespace solscope::app {

/// The one duration grammar (core/duration.hpp).
using core::parse_duration_ns;

/// Parses a device list: comma-separated NVML indices and ranges ("0,2", "0-3", "1,4-5"), sorted, duplicates
/// removed. Errors: InvalidArgument naming the bad element.
[[nodiscard]] auto parse_device_list(std::string_view text) -> core::Result<std::vector<std::uint32_t>>;

/// Default sampling interval (--interval).
inline constexpr std::string_view kDefaultInterval = "100ms";

/// Smallest and largest accepted sampling interval (core/units.hpp).
inline constexpr std::int64_t kMinIntervalNs = core::kMinSampleIntervalNs;
inline constexpr std::int64_t kMaxIntervalNs = core::kMaxSampleIntervalNs;

}  // namespace solscope::app
