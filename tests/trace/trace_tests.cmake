# Tests of the trace format (src/trace): round trips, refusals, damage, SIGKILLed writers, export, JSON.
include(${PROJECT_SOURCE_DIR}/tests/data/synthetic/synthetic.cmake)
solscope_add_test(trace
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/columns_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/synthetic_profiles_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/damage_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/device_placement_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/export_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/foreign_text_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/fixture_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/fuzz_regression_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/kernels_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/kill_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/reader_errors_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/wal_damage_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/writer_reader_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/writer_safety_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/full_disk_vfs.cpp
  LIBS solscope::trace solscope::wire solscope_synthetic_trace SQLite::SQLite3 nlohmann_json::nlohmann_json)
