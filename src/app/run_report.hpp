// `solscope run`: the report printed when the command ends, the same text and HTML as `solscope report`
// (report_command.hpp, report_html.hpp) after a one-line summary of the run.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

namespace solscope::app {

/// Prints the report of the finished trace at `trace` to `err` (stderr). Returns kExitOk, or the exit
/// code of a failure to read the trace (kExitBadTrace), which `run` reports but does not return (it returns
/// CMD's code). First "solscope: run: N samples of G GPU(s), K kernels (D dropped), S s of the command",
/// then, when the trace has samples, report::render_text() of the trace.
[[nodiscard]] auto print_run_report(const std::filesystem::path& trace, std::ostream& err) -> int;

/// Writes the HTML report of `trace` to `html` (`run --html FILE`); same returns as print_run_report().
/// kExitFailure when the file cannot be written.
[[nodiscard]] auto write_run_html(const std::filesystem::path& trace, const std::string& html,
                                  std::ostream& err) -> int;

}  // namespace solscope::app
