// The text form of `solscope report`: at most 100 columns, names from the trace made terminal-safe.
#pragma once

#include <string>

#include "report/report.hpp"

namespace solscope::report {

/// Widest line render_text() writes, in columns (kernel names are cut to fit, with "...").
inline constexpr std::size_t kTextWidth = 100;
/// Phases listed per GPU in the text; beyond this the longest ones are shown, in time order.
inline constexpr std::size_t kTextPhases = 12;

/// The report as text lines for a terminal or a log: per GPU its figures, bound time, phases and top kernels.
/// Unknown figures print "n/a".
[[nodiscard]] auto render_text(const Report& report) -> std::string;

}  // namespace solscope::report
