// The kernels table (schema 2, schema.hpp SOLSCOPE_TRACE_KERNEL_COLUMNS): the writer's INSERT and the
// reader's damage-tolerant scan.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/kernel_record.hpp"
#include "core/result.hpp"
#include "trace/detail/sqlite.hpp"
#include "trace/reader.hpp"

namespace solscope::trace::detail {

/// INSERT INTO kernels(<the kernel columns>) VALUES (?1, ...): one parameter per column, in table order.
[[nodiscard]] auto insert_kernel_sql() -> const std::string&;

/// Binds and steps `insert` (prepared from insert_kernel_sql()) for each record. Errors: the SQLite error of
/// the first failing row ("cannot insert a kernel record: ...").
[[nodiscard]] auto insert_kernels(sqlite3* db, sqlite3_stmt* insert,
                                  std::span<const core::KernelRecord> records) -> core::Result<void>;

/// `name` cut to at most kMaxKernelNameBytes bytes at a UTF-8 character boundary.
[[nodiscard]] auto clip_kernel_name(std::string name) -> std::string;

/// Reads the kernels of `db` selected by `options` in id order, steps over damaged id ranges (the first
/// readable id after the damage is found by seeks of doubling distance), then sorts them by (start_ns,
/// device, id). `path` names the file in the note. Errors: only a failure that is not damage (e.g. out of
/// memory); damage is counted in the table's report and note.
[[nodiscard]] auto scan_kernels(sqlite3* db, const std::string& path, const KernelReadOptions& options)
    -> core::Result<KernelTable>;

/// The scan of scan_kernels() without holding the records: `sink` gets each selected record in id (arrival)
/// order, unsorted; the table returned has the report and note, and no records.
[[nodiscard]] auto scan_kernels_each(sqlite3* db, const std::string& path, const KernelReadOptions& options,
                                     const KernelSink& sink) -> core::Result<KernelTable>;

}  // namespace solscope::trace::detail
