# solscope_trace: the SQLite trace format (schema.hpp): Writer, Reader, CSV/JSONL export (the JSON of a sample:
# src/wire).
# Public headers forward-declare SQLite; sqlite3.h is included only under src/trace/detail/ and the .cpp files.
solscope_add_library(trace SOURCES
  detail/columns.cpp
  detail/disk_room.cpp
  detail/file_lock.cpp
  detail/file_probe.cpp
  detail/forwarding_vfs.cpp
  detail/id_scan.cpp
  detail/kernel_rows.cpp
  detail/marker_rows.cpp
  detail/reader_cursor.cpp
  detail/reader_damage.cpp
  detail/reader_open.cpp
  detail/reader_report.cpp
  detail/row_account.cpp
  detail/sqlite.cpp
  detail/wal_probe.cpp
  detail/whole_pages_vfs.cpp
  detail/workload_rows.cpp
  detail/workload_scan.cpp
  detail/writer_setup.cpp
  export.cpp
  reader.cpp
  writer.cpp
  writer_markers.cpp
  PUBLIC solscope::core nlohmann_json::nlohmann_json
  PRIVATE solscope::wire SQLite::SQLite3 fmt::fmt)
