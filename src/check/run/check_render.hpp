// How `solscope check` shows what it found: a table per GPU and source (fits 100 columns) and the overhead
// table, or the same as one JSON document (docs/accuracy.md "Running it").
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "check/run/detail/check_report.hpp"

namespace solscope::app {

/// Writes the tables: per GPU and source its rows (phase, metric, expected ("<= 5.0%" for a bound),
/// measured, difference, tolerance, samples, PASS/FAIL/FAULT/NO DATA) and notes, then the overhead per GPU,
/// then the notes and one summary line ("check: 41 of 42 passed, 1 failed").
void render_check_table(const CheckReport& report, std::ostream& out);

/// The report as JSON: {"result": "pass"|"fail", "passed", "failed", "checks": [{"gpu", "name", "source",
/// "rows": [...], "notes": [...]}], "overhead": [{"gpu", "source", "rows": [...]}], "notes": [...]}. Unknown
/// figures are null.
[[nodiscard]] auto check_json(const CheckReport& report) -> nlohmann::json;

}  // namespace solscope::app
