# Tests of the trace replay source (src/sources/replay), on SYNTHETIC traces.
include(${PROJECT_SOURCE_DIR}/tests/data/synthetic/synthetic.cmake)
solscope_add_test(replay
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/trace_replay_source_test.cpp
  LIBS solscope::replay solscope_synthetic_trace SQLite::SQLite3)
