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

/// Seconds per hour, for GPU-hours: 3600.
inline constexpr double kSecondsPerHour = static_cast<double>(kNsPerHour) / static_cast<double>(kNsPerS);

/// Decimal SI prefixes as factors (datasheets print GB = 1e9 bytes, MHz = 1e6 Hz; NVML reports mW, a latency
/// in us times kMicro is in s). kMicro is 1 / kMega, which is the double nearest 1e-6.
inline constexpr double kKilo = 1e3;
inline constexpr double kMega = 1e6;
inline constexpr double kGiga = 1e9;
inline constexpr double kMicro = 1.0 / kMega;

/// Binary prefixes as factors (nvidia-smi, DCGM and NVML GPM count MiB = 2^20 bytes; GiB = 2^30 bytes).
inline constexpr double kMebi = 1024.0 * 1024.0;
inline constexpr double kGibi = 1024.0 * kMebi;

/// 100 %: a ratio in [0, 1] times kPercent is a percentage.
inline constexpr double kPercent = 100.0;
/// A percentage times kRatioPerPercent is a ratio in [0, 1]: 1 / kPercent, the double nearest 0.01 (as the
/// Prometheus ratio series want it).
inline constexpr double kRatioPerPercent = 1.0 / kPercent;

/// Smallest and largest sampling interval any source accepts (1 ms and 60 s): below 1 ms the PM hardware
/// buffer and the decode thread cannot keep up (CUPTI PM sampling), above 60 s a live view says nothing.
inline constexpr std::int64_t kMinSampleIntervalNs = kNsPerMs;
inline constexpr std::int64_t kMaxSampleIntervalNs = 60 * kNsPerS;

}  // namespace solscope::core
