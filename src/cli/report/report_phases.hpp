// `solscope report TRACE --phases FILE`: the trace held against a workload's declared phases
// (report/declared_phases.hpp; docs/report.md, "Declared phases"). The GPU proof kit's verdict.
#pragma once

#include <string>

#include "core/result.hpp"
#include "report/declared_phases.hpp"
#include "report/report.hpp"
#include "trace/reader.hpp"

namespace solscope::app {

/// Reads the phase file at `phases_path`, picks the GPU it names (by UUID; without one, the trace's only
/// GPU) and makes the judge that build_report() feeds in its one pass over the trace. The tensor FLOP/s
/// figure uses the built-in GPU specs' dense BF16 rate at the phase's mean SM clock. Errors: the file's read
/// or parse error (InvalidArgument, NotFound, ...); NotFound when the named GPU is not in the trace;
/// InvalidArgument when the file names no GPU and the trace holds several.
[[nodiscard]] auto prepare_phase_judge(const trace::Reader& reader, const std::string& phases_path)
    -> core::Result<report::PhaseJudge>;

/// The verdicts of a judge that has seen the trace; the longest kernel of each phase takes its SOL from
/// `built`'s kernel rows when it is among them. `phases_path` names the file in the report.
[[nodiscard]] auto finish_phase_judge(const report::PhaseJudge& judge, const report::Report& built,
                                      const std::string& phases_path) -> report::DeclaredPhaseReport;

}  // namespace solscope::app
