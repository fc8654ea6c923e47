// `solscope run`: the report printed when the command ends, the same text and HTML as `solscope report`
// (report_command.hpp, report_html.hpp) after a one-line summary of the run.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

namespace solscope::app {

/// Prints the report of the finished trace at `trace` to `err` (stderr) and, when `html` is not empty,
/// writes its HTML page there (`run --html FILE`); the trace is read once for both. First "solscope: run: N
/// samples of G GPU(s), K kernels (D dropped), S s of the command", then, when the trace has samples or
/// kernels, report::render_text() of the trace (kernels of GPUs that were not sampled are listed with their
/// SOL unknown). Returns kExitOk; kExitBadTrace when the trace cannot be read, kExitFailure when the page
/// cannot be written: `run` reports these but does not return them (it returns CMD's code).
[[nodiscard]] auto print_run_report(const std::filesystem::path& trace, const std::string& html,
                                    std::ostream& err) -> int;

}  // namespace solscope::app
