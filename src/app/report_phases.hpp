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
/// GPU), and judges every phase over a second pass of the trace's samples and its kernel log. The longest
/// kernel of each phase takes its SOL from `built`'s kernel rows when it is among them. The tensor FLOP/s
/// figure uses the built-in GPU specs' dense BF16 rate at the phase's mean SM clock. Errors: the file's read
/// or parse error (InvalidArgument, NotFound, ...); NotFound when the named GPU is not in the trace;
/// InvalidArgument when the file names no GPU and the trace holds several; the reader's errors.
[[nodiscard]] auto judge_declared_phases(const trace::Reader& reader, const report::Report& built,
                                         const std::string& phases_path)
    -> core::Result<report::DeclaredPhaseReport>;

}  // namespace solscope::app
