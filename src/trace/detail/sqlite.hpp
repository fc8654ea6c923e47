// Small RAII and error helpers over the SQLite C API, private to src/trace (public headers never include
// sqlite3.h).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace solscope::trace::detail {

/// Finalizes a prepared statement.
struct StatementDeleter {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
/// An owned prepared statement.
using Statement = std::unique_ptr<sqlite3_stmt, StatementDeleter>;

/// Closes a connection (sqlite3_close_v2: deferred until its statements are finalized).
struct ConnectionDeleter {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
/// An owned connection.
using Connection = std::unique_ptr<sqlite3, ConnectionDeleter>;

/// The core error for a failed SQLite call: code from the primary result code (CORRUPT/NOTADB -> DataLoss,
/// FULL -> ResourceExhausted, READONLY/PERM/CANTOPEN -> PermissionDenied, BUSY/LOCKED/IOERR -> Unavailable,
/// else Internal); message "<what>: <sqlite message>" naming the object.
[[nodiscard]] auto sqlite_error(sqlite3* db, int rc, std::string_view what) -> core::Error;

/// Prepares `sql` on `db`; `persistent` hints that the statement is reused many times.
[[nodiscard]] auto prepare(sqlite3* db, std::string_view sql, std::string_view what, bool persistent = false)
    -> core::Result<Statement>;

/// Runs one or more statements that return no rows.
[[nodiscard]] auto exec(sqlite3* db, const char* sql, std::string_view what) -> core::Result<void>;

/// Binds a double, or NULL when `v` is NaN (traces store unknown as NULL, never 0).
void bind_real_or_null(sqlite3_stmt* statement, int column, double v);

/// Binds text that outlives the step (SQLITE_STATIC), or NULL when empty.
void bind_text_or_null(sqlite3_stmt* statement, int column, std::string_view text);

/// Column `column` as a double; NaN when NULL.
[[nodiscard]] auto column_real_or_nan(sqlite3_stmt* statement, int column) -> double;

/// Column `column` as text ("" when NULL), its bytes as stored: for names compared with known spellings.
[[nodiscard]] auto column_text(sqlite3_stmt* statement, int column) -> std::string_view;

/// Column `column` as valid UTF-8 ("" when NULL): each ill-formed sequence becomes U+FFFD
/// (core::valid_utf8). How the reader takes every text a trace hands on (device names and UUIDs, meta values,
/// kernel names), since a file can hold any bytes: a damaged byte or a foreign writer.
[[nodiscard]] auto column_utf8(sqlite3_stmt* statement, int column) -> std::string;

/// True for the result codes that mean damaged or foreign data (SQLITE_CORRUPT, SQLITE_NOTADB).
[[nodiscard]] auto is_damage(int rc) -> bool;

/// `path` as an SQLite URI ("file:" + percent-escaped path) with `query` (e.g. "mode=ro&immutable=1").
[[nodiscard]] auto file_uri(const std::string& path, std::string_view query) -> std::string;

}  // namespace solscope::trace::detail
