// `solscope run`: the report printed when the command ends. THE ONE CALL SITE of the report for `run`: the
// lead wires `solscope report`'s text rendering (branch r-report: build_report and its text renderer) into
// print_run_report() and its HTML writer into write_run_html(); until then they print a one-line summary.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

namespace solscope::app {

/// Prints the report of the finished trace at `trace` to `err` (stderr). Returns kExitOk, or the exit
/// code of a failure to read the trace (kExitBadTrace), which `run` reports but does not return (it returns
/// CMD's code). For now: "solscope: run: N samples of G GPU(s), K kernels (D dropped), S s of CMD".
[[nodiscard]] auto print_run_report(const std::filesystem::path& trace, std::ostream& err) -> int;

/// Writes the HTML report of `trace` to `html` (`run --html FILE`); same returns as print_run_report().
/// For now it says that the HTML report is not in this build and where the trace is.
[[nodiscard]] auto write_run_html(const std::filesystem::path& trace, const std::string& html,
                                  std::ostream& err) -> int;

}  // namespace solscope::app
