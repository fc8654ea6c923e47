// Unit and ratio constants shared by every layer: time in nanoseconds, decimal SI prefixes, and the percent
// scale. One place for each factor, so that a conversion is spelled the same everywhere.
#pragma once

#include <cstdint>

namespace solscope::core {

/// Nanoseconds per microsecond, millisecond, second, minute and hour.
inline constexpr std::int64_t kNsPerUs = 1'000;
inline constexpr std::int64_t kNsPerMs = 1'000'000;
inline constexpr std::int64_t kNsPerS = 1'000'000'000;
inline constexpr std::int64_t kNsPerMin = 60 * kNsPerS;
inline constexpr std::int64_t kNsPerHour = 60 * kNsPerMin;

/// Decimal SI prefixes as factors (datasheets print GB = 1e9 bytes, MHz = 1e6 Hz).
inline constexpr double kMega = 1e6;
inline constexpr double kGiga = 1e9;

/// 100 %: a ratio in [0, 1] times kPercent is a percentage.
inline constexpr double kPercent = 100.0;

/// Smallest and largest sampling interval any source accepts (1 ms and 60 s): below 1 ms the PM hardware
/// buffer and the decode thread cannot keep up (CUPTI PM sampling), above 60 s a live view says nothing.
inline constexpr std::int64_t kMinSampleIntervalNs = kNsPerMs;
inline constexpr std::int64_t kMaxSampleIntervalNs = 60 * kNsPerS;

}  // namespace solscope::core
