// Creating a new trace file: path checks with errno-level messages, pragmas, schema and meta rows.
#pragma once

#include <filesystem>
#include <string_view>

#include "core/result.hpp"
#include "trace/detail/sqlite.hpp"
#include "trace/writer.hpp"

namespace solscope::trace::detail {

/// INSERT OR REPLACE of one meta row (in the open transaction, or committed at once in autocommit mode).
/// Errors: the SQLite error, with `what` as the message prefix.
[[nodiscard]] auto write_meta_row(sqlite3* db, std::string_view key, std::string_view value,
                                  std::string_view what) -> core::Result<void>;

/// Makes sure `path` can hold a new trace: refuses a directory, refuses an existing non-empty file (or one
/// with a non-empty -wal beside it) unless `overwrite`, removes stale -wal/-shm/-journal files, and creates
/// the file. Errors name the path and the errno text.
[[nodiscard]] auto prepare_trace_file(const std::filesystem::path& path, bool overwrite)
    -> core::Result<void>;

/// Opens `path` read-write, sets the page size, WAL mode, synchronous=NORMAL and the application id, and
/// writes the schema, the meta rows and the metrics table in one transaction.
[[nodiscard]] auto create_trace_database(const std::filesystem::path& path, const WriterOptions& options)
    -> core::Result<Connection>;

}  // namespace solscope::trace::detail
