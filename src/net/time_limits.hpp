// The time range every reader of outside data accepts: scrapes, Prometheus answers, imported recordings.
#pragma once

#include <cstdint>

namespace solscope::net {

/// The latest time any imported or scraped recording may carry: the year 2200, i.e. before 2200-01-01 00:00
/// UTC in Unix seconds (ns since the epoch fit an int64 until 2262). Every reader derives its limit from
/// these.
inline constexpr int kLatestYear = 2200;
inline constexpr std::int64_t kLatestUnixSeconds = 7'258'118'400;
/// Latest sample-line timestamp accepted, in Unix ms.
inline constexpr std::int64_t kMaxTimestampMs = kLatestUnixSeconds * 1000;

}  // namespace solscope::net
