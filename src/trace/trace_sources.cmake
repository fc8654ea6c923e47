# solscope_trace: the SQLite trace format (schema.hpp): Writer, Reader, CSV/JSONL export (the JSON of a sample:
# src/wire).
# Public headers forward-declare SQLite; sqlite3.h is included only under src/trace/detail/ and the .cpp files.
add_library(solscope_trace STATIC
  ${CMAKE_CURRENT_LIST_DIR}/detail/columns.cpp
  ${CMAKE_CURRENT_LIST_DIR}/detail/file_lock.cpp
  ${CMAKE_CURRENT_LIST_DIR}/detail/file_probe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/detail/forwarding_vfs.cpp
  ${CMAKE_CURRENT_LIST_DIR}/detail/kernel_rows.cpp
  ${CMAKE_CURRENT_LIST_DIR}/detail/reader_cursor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/detail/reader_damage.cpp
  ${CMAKE_CURRENT_LIST_DIR}/detail/reader_open.cpp
  ${CMAKE_CURRENT_LIST_DIR}/detail/reader_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/detail/sqlite.cpp
  ${CMAKE_CURRENT_LIST_DIR}/detail/wal_probe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/detail/whole_pages_vfs.cpp
  ${CMAKE_CURRENT_LIST_DIR}/detail/writer_setup.cpp
  ${CMAKE_CURRENT_LIST_DIR}/export.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/writer.cpp
)
add_library(solscope::trace ALIAS solscope_trace)
target_include_directories(solscope_trace PUBLIC ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(solscope_trace
  PUBLIC solscope::core nlohmann_json::nlohmann_json
  PRIVATE solscope::wire SQLite::SQLite3 fmt::fmt solscope_options)
