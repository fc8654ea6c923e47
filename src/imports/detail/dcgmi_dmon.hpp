// `dcgmi dmon -e FIELDS` text logs as solscope samples (SourceKind::Dcgm). Pure: no I/O.
//
// Layout (DCGM's dcgmi): a header "#Entity TAG TAG ..." (the field tags of core/dcgm_fields.hpp, or numeric
// field ids), an "ID" line, then one row per entity per interval: "GPU 0  0.888  N/A ...". Entities are
// "GPU N", "GPU-I N" (a MIG GPU instance: a device of its own) and "GPU-CI N". The header repeats; a new
// header may change the columns. "N/A" (and "N/W", "N/S") mean no value; DCGM's placeholder values
// (2^47, 0x7ff...f0-f3) too. Rows carry no time: an interval ends when an entity shows again, and samples
// are placed every DmonOptions::interval_ns.
//
// SOL definition (docs/design/sol-metrics.md): Compute SOL = the busiest of tensor / FP64 / FP32 / FP16
// pipe active; Memory SOL = DRAM active; L2, L1 and issue unknown.
#pragma once

#include <string_view>

#include "core/result.hpp"
#include "imports/detail/dmon_common.hpp"
#include "imports/detail/recording.hpp"
#include "imports/line_source.hpp"

namespace solscope::imports {

/// Parses a dcgmi dmon log. Lines above the first header (a shell prompt, the command line of a pasted
/// capture) are skipped and counted in tally.lines_above_header. Errors: DataLoss "line N: ..." for a row
/// whose column count differs from its header's, a value that is not a number; InvalidArgument when the text
/// holds no header or no row (not a dcgmi dmon log).
[[nodiscard]] auto parse_dcgmi_dmon(std::string_view text, const DmonOptions& options)
    -> core::Result<Recording>;

/// parse_dcgmi_dmon() over `lines`, each sample handed to `rows` as its row is read (no span to wait for:
/// rows are placed by interval); the Recording returned has no samples. Holds one row and, per entity, its
/// device. Errors: as parse_dcgmi_dmon(), the source's and the sink's (through `rows`).
[[nodiscard]] auto stream_dcgmi_dmon(LineSource& lines, const DmonOptions& options, RowSink& rows)
    -> core::Result<Recording>;

/// The SOL definition of DCGM-derived samples, for meta sol_definition.
inline constexpr std::string_view kDcgmSolDefinition =
    "dcgm: Compute SOL = max(tensor, FP64, FP32, FP16 pipe active); Memory SOL = DRAM active; L2, L1 and "
    "issue unknown";

}  // namespace solscope::imports
