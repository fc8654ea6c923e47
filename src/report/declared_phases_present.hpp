// The JSON and text forms of `solscope report --phases` (declared_phases.hpp; docs/report.md, "Declared
// phases").
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "report/declared_phases.hpp"

namespace solscope::report {

/// The "declared_phases" object of the JSON report: file, device, result and per phase its window, samples,
/// result, figures (percentages 0-100, rates per second, null = unknown), longest kernel and checks.
[[nodiscard]] auto declared_phases_json(const DeclaredPhaseReport& report) -> nlohmann::ordered_json;

/// The text section: one line per phase, then one line per check and the phase's longest kernel.
[[nodiscard]] auto render_declared_phases(const DeclaredPhaseReport& report) -> std::string;

}  // namespace solscope::report
