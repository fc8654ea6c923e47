// Parsing of the common option values: device lists ("0,2-3"); durations ("100ms") parse in core
// (core/duration.hpp), through the option table (config::parse_duration_value). The defaults of the table's
// durations.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "core/units.hpp"

namespace solscope::app {

/// Parses a device list: comma-separated NVML indices and ranges ("0,2", "0-3", "1,4-5"), sorted, duplicates
/// removed. Errors: InvalidArgument naming the bad element.
[[nodiscard]] auto parse_device_list(std::string_view text) -> core::Result<std::vector<std::uint32_t>>;

// The defaults of the option table's durations, in ns, each stated here only: the commands' option structs
// start from them and the table's help shows them (config::format_duration).

/// --interval when no layer (command line, SOLSCOPE_INTERVAL, config file) gives one and the source has no
/// rule of its own (dcgm-exporter has: sampling_interval_ns(), source_factory.hpp).
inline constexpr std::int64_t kDefaultIntervalNs = 100 * core::kNsPerMs;
/// --since of `fleet` and of `serve --prometheus`: the fleet window, ending now.
inline constexpr std::int64_t kDefaultFleetWindowNs = core::kNsPerHour;
/// `fleet --refresh`: time between refreshes of the terminal view.
inline constexpr std::int64_t kDefaultFleetRefreshNs = 5 * core::kNsPerS;
/// `import --delay`: the collection interval of a log without timestamps, the span of a single scrape or of a
/// Prometheus instant-query answer.
inline constexpr std::int64_t kDefaultImportDelayNs = core::kNsPerS;

}  // namespace solscope::app
