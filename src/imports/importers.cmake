# The importers of `solscope import` (dmon logs, Prometheus query_range JSON, nsys SQLite exports, saved
# dcgm-exporter scrapes) in solscope_imports. Text importers are pure; nsys_sqlite.cpp opens the export
# read-only with SQLite.
target_sources(solscope_imports PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/recording.cpp
  ${CMAKE_CURRENT_LIST_DIR}/text_lines.cpp
  ${CMAKE_CURRENT_LIST_DIR}/line_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dmon_common.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dcgmi_dmon.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nvidia_smi_dmon.cpp
  ${CMAKE_CURRENT_LIST_DIR}/prometheus_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dcgm_exporter_import.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nsys_sqlite.cpp
  ${CMAKE_CURRENT_LIST_DIR}/importer.cpp
)
target_link_libraries(solscope_imports PRIVATE solscope::wire SQLite::SQLite3 nlohmann_json::nlohmann_json)
