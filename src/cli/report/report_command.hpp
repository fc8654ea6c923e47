// `solscope report TRACE [--json]` (README "Reports"; docs/report.md), and the report of a trace for other
// commands (`solscope run` prints one when its command ends).
#pragma once

#include <ostream>
#include <string>

#include "core/result.hpp"
#include "report/declared_phases.hpp"
#include "report/report.hpp"
#include "trace/reader.hpp"

namespace solscope::app {

/// The report of an opened trace: its kernel log and every readable sample, derived with core::derive() and
/// the recorded devices, through report::ReportBuilder. Damage that still leaves samples (and a damaged
/// kernels table) is written to `err` as a warning. `path` names the trace in the report. `phases`, when
/// given, is fed the same kernels and derived samples in the same pass (`report --phases`). `step_range` is
/// the NVTX range that marks a training step (`report --step-range`; empty = found). Errors: DataLoss
/// (Reader::problem's message) when no sample can be read from a damaged file; Internal and
/// ResourceExhausted from the reader.
[[nodiscard]] auto build_report(const trace::Reader& reader, const std::string& path, std::ostream& err,
                                report::PhaseJudge* phases = nullptr, const std::string& step_range = {})
    -> core::Result<report::Report>;

/// What `solscope report` takes.
struct ReportArgs {
  std::string file;
  bool json = false;       ///< --json: the JSON report (docs/report.md) instead of the text
  std::string html;        ///< --html FILE: also the HTML report (report_html.hpp); empty = none
  bool force = false;      ///< --force: --html may replace an existing file
  std::string phases;      ///< --phases FILE: also judge the workload's declared phases (report_phases.hpp)
  std::string step_range;  ///< --step-range NAME: the NVTX range that marks a training step; empty = found
};

/// `solscope report`: the text (at most 100 columns) or JSON report of `args.file` on `out`. Exit codes:
/// 0; 5 when the trace is missing, not a trace, too new, or damaged beyond reading any sample; 2 for a bad
/// --phases file; 6 when a declared phase failed or had no data; 1 for other failures. A reader that goes
/// away (`| head`) ends it quietly with 0.
auto run_report(const ReportArgs& args, std::ostream& out, std::ostream& err) -> int;

}  // namespace solscope::app
