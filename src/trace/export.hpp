// Export of a trace to CSV and JSON Lines, for scripts and spreadsheets.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "trace/reader.hpp"

namespace solscope::trace {

/// Appends one CSV text cell to `line`, the one rule of every text cell solscope writes to CSV: a cell that
/// starts with `=`,
/// `+`,
/// `-`, `@`, tab or carriage return and is not a number ("-5" is) gets a leading `'`, so that a spreadsheet
/// shows it as text instead of running it as a formula (OWASP "CSV Injection"; a GPU UUID label of
/// `=HYPERLINK(...)` from a dcgm-exporter); then it is quoted (RFC 4180) when it holds a comma, a quote or a
/// line break. Numbers written as numbers do not pass through here.
void append_csv_cell(std::string& line, std::string_view text);

/// Writes the selected samples as CSV (RFC 4180: comma-separated, "\n" line ends, text quoted when it holds a
/// comma, quote or line break; every text cell through append_csv_cell()). One header row, then one row per
/// sample in time order. Columns, always in this order: device, uuid, t_start_ns, t_end_ns, source, flags,
/// compute_sol_pct, compute_pipe, memory_sol_pct, memory_path, bound, dram_bytes_per_s,
/// attainable_compute_sol_pct, attainable_memory_sol_pct, pm_pause (core::PmPauseReason's name; empty when
/// PM sampling was not paused), the device's gpu (the physical GPU's index, core::DeviceInfo::gpu_number()),
/// parent_uuid, mig_profile and mig_instance_id (empty for a whole GPU), then every catalog metric by name in
/// core::metric_catalog() order. Unknown values (NaN) are empty cells. Numbers are locale-independent, in the
/// shortest form that reads back to the same double.
///
/// Returns what was read (ReadSummary::recovered for a damaged trace: the rows before the damage are
/// written). Errors: Unavailable when `out` fails; those of Reader::cursor.
[[nodiscard]] auto export_csv(const Reader& reader, std::ostream& out, const ReadOptions& options = {})
    -> core::Result<ReadSummary>;

/// Writes the selected samples as JSON Lines: one wire::append_sol_sample_json() object per line
/// (wire/sample_json.hpp), in time order, no header. Unknown values are null. Returns and errors as
/// export_csv.
[[nodiscard]] auto export_jsonl(const Reader& reader, std::ostream& out, const ReadOptions& options = {})
    -> core::Result<ReadSummary>;

}  // namespace solscope::trace
