// Export of a trace to CSV and JSON Lines, for scripts and spreadsheets.
#pragma once

#include <iosfwd>

#include "core/result.hpp"
#include "trace/reader.hpp"

namespace solscope::trace {

/// Writes the selected samples as CSV (RFC 4180: comma-separated, "\n" line ends, text quoted when it holds a
/// comma, quote or line break). One header row, then one row per sample in time order. Columns, always in
/// this order: device, uuid, t_start_ns, t_end_ns, source, flags, compute_sol_pct, compute_pipe,
/// memory_sol_pct, memory_path, bound, dram_bytes_per_s, attainable_compute_sol_pct,
/// attainable_memory_sol_pct, then every catalog metric by name in core::metric_catalog() order. Unknown
/// values (NaN) are empty cells. Numbers are locale-independent, in the shortest form that reads back to the
/// same double.
///
/// Returns what was read (ReadSummary::recovered for a damaged trace: the rows before the damage are
/// written). Errors: Unavailable when `out` fails; those of Reader::cursor.
[[nodiscard]] auto export_csv(const Reader& reader, std::ostream& out, const ReadOptions& options = {})
    -> core::Result<ReadSummary>;

/// Writes the selected samples as JSON Lines: one wire::sol_sample_to_json() object per line
/// (wire/sample_json.hpp), in time order, no header. Unknown values are null. Returns and errors as
/// export_csv.
[[nodiscard]] auto export_jsonl(const Reader& reader, std::ostream& out, const ReadOptions& options = {})
    -> core::Result<ReadSummary>;

}  // namespace solscope::trace
