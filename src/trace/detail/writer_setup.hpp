// Creating a new trace file: path checks with errno-level messages, pragmas, schema and meta rows.
#pragma once

#include <filesystem>
#include <span>
#include <string_view>

#include "core/device_info.hpp"
#include "core/result.hpp"
#include "trace/detail/file_lock.hpp"
#include "trace/detail/sqlite.hpp"
#include "trace/writer.hpp"

namespace solscope::trace::detail {

/// INSERT OR REPLACE of one meta row (in the open transaction, or committed at once in autocommit mode).
/// Errors: the SQLite error, with `what` as the message prefix.
[[nodiscard]] auto write_meta_row(sqlite3* db, std::string_view key, std::string_view value,
                                  std::string_view what) -> core::Result<void>;

/// INSERT OR REPLACE of one devices row per device (by device index), in one transaction committed at once.
/// Errors: the SQLite error, with `what` as the message prefix (the transaction is rolled back).
[[nodiscard]] auto write_device_rows(sqlite3* db, std::span<const core::DeviceInfo> devices,
                                     std::string_view what) -> core::Result<void>;

/// A trace file ready for create_trace_database(): empty, locked, without stale -wal/-shm/-journal files.
struct PreparedFile {
  /// The exclusive lock on the file (file_lock.hpp), to hold until the database is closed.
  FileLock lock;
  /// This call created the file (it did not exist, or an old trace was replaced): remove_trace_files() may
  /// undo it.
  bool created = false;
};

/// Makes sure `path` can hold a new trace and locks it: refuses a directory and anything that is not a
/// regular file (a device such as /dev/null, a FIFO, a socket) without creating anything beside it; refuses a
/// file that another Writer holds (lock_exclusive: "being recorded by another process (pid N)"); refuses an
/// existing non-empty file (or one with a non-empty -wal beside it) unless `overwrite`, which replaces it by
/// a new file (unlink, so that a reader of the old file keeps reading it); removes stale -wal/-shm/-journal
/// files. Errors name the path and the errno text: InvalidArgument for the refusals of the path, Unavailable
/// for a held lock, PermissionDenied / NotFound / Unavailable when the file cannot be created.
[[nodiscard]] auto prepare_trace_file(const std::filesystem::path& path, bool overwrite)
    -> core::Result<PreparedFile>;

/// Removes `path` and its -wal, -shm and -journal files, ignoring errors (a failed start, or a trace left
/// without any sample).
void remove_trace_files(const std::filesystem::path& path);

/// Opens `path` read-write, sets the page size, WAL mode, synchronous=NORMAL and the application id, and
/// writes the schema, the meta rows and the metrics table in one transaction.
[[nodiscard]] auto create_trace_database(const std::filesystem::path& path, const WriterOptions& options)
    -> core::Result<Connection>;

}  // namespace solscope::trace::detail
