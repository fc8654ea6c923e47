// The JSON form of `solscope report --json` (docs/report.md lists every key with its unit). Stable: keys are
// only ever added; report_version changes when a key changes meaning or goes away.
#pragma once

#include <nlohmann/json.hpp>

#include "report/report.hpp"

namespace solscope::report {

/// The version of the JSON layout below.
inline constexpr int kReportJsonVersion = 1;

/// The report as one JSON object, keys in a fixed order. Times: `*_ns` epoch nanoseconds, `*_s` seconds;
/// percentages 0-100 (raw above 100); unknown figures are null, never 0; pipes and paths by their core names
/// ("tensor", "dram"), null when unknown.
[[nodiscard]] auto to_json(const Report& report) -> nlohmann::ordered_json;

}  // namespace solscope::report
