// The markers table (schema 6, schema.hpp SOLSCOPE_TRACE_MARKER_COLUMNS): the writer's INSERT and the
// reader's damage-tolerant scan (the IdScan of the kernels and workloads tables).
#pragma once

#include <span>
#include <string>

#include "core/kernel_record.hpp"
#include "core/result.hpp"
#include "trace/detail/sqlite.hpp"
#include "trace/reader.hpp"

namespace solscope::trace::detail {

/// INSERT INTO markers(<the marker columns>) VALUES (?1, ...): one parameter per column, in table order.
[[nodiscard]] auto insert_marker_sql() -> const std::string&;

/// Binds and steps `insert` (prepared from insert_marker_sql()) for each record; names and domains must be
/// cut already (clip_kernel_name). Errors: the SQLite error of the first failing row ("cannot insert an NVTX
/// marker: ...").
[[nodiscard]] auto insert_markers(sqlite3* db, sqlite3_stmt* insert,
                                  std::span<const core::MarkerRecord> records) -> core::Result<void>;

/// Reads the markers of `db` in id order, steps over damaged id ranges (seeks of doubling distance, as the
/// kernels scan does), refuses damaged rows (an end before the start, a pid outside int32, a tid or depth
/// outside uint32, an id out of order with its neighbours: row_account.hpp), then sorts them by (start_ns,
/// pid, tid, id). `path` names the file in the note. Errors: only a failure that is not damage; damage is
/// counted in MarkerTable::skipped_rows and note, settled against the table's row count (rows +
/// skipped_rows = table rows). Only the first `max_rows` good rows are kept; the others are counted in
/// MarkerTable::left_out_rows and said in the note.
[[nodiscard]] auto scan_markers(sqlite3* db, const std::string& path, std::uint64_t max_rows = kMaxMarkerRows)
    -> core::Result<MarkerTable>;

}  // namespace solscope::trace::detail
