# Tests of the trace format (src/trace): round trips, refusals, damage, SIGKILLed writers, export, JSON.
include(${PROJECT_SOURCE_DIR}/tests/data/synthetic/synthetic.cmake)
solscope_add_test(trace
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/columns_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/synthetic_profiles_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/damage_count_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/damage_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/device_placement_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/export_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/foreign_text_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/fixture_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/fuzz_regression_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/iteration_trace_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/kernels_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/kill_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/markers_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/reader_errors_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/wal_damage_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/writer_reader_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/writer_safety_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/workloads_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/full_disk_vfs.cpp
  LIBS solscope::trace solscope::wire solscope_synthetic_trace SQLite::SQLite3 nlohmann_json::nlohmann_json)

# The damage campaign (docs/trace-format.md "Durability and damage"): 120 randomly damaged traces, each refused
# at open or read with rows read + skipped = the table's rows. One ctest of its own, without a label, so that
# every ctest run (CI's .ci/run included) runs it; about 10 s on one core.
add_executable(solscope_trace_damage_campaign ${CMAKE_CURRENT_LIST_DIR}/damage_campaign_test.cpp)
target_link_libraries(solscope_trace_damage_campaign PRIVATE solscope::trace solscope_synthetic_trace
                      GTest::gtest GTest::gtest_main solscope_options)
target_include_directories(solscope_trace_damage_campaign PRIVATE ${PROJECT_SOURCE_DIR}/tests ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(solscope_trace_damage_campaign PRIVATE
  SOLSCOPE_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data" SOLSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_test(NAME trace.damage_campaign COMMAND solscope_trace_damage_campaign)
set_tests_properties(trace.damage_campaign PROPERTIES TIMEOUT 120)
