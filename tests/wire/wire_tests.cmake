# Tests of the wire room (src/wire): the JSON number rule, tolerant field reads and the window's JSON shape.
# The round trips of samples and devices through a daemon's answers are in tests/server (sample_json_test.cpp).
solscope_add_test(wire
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/wire_test.cpp ${CMAKE_CURRENT_LIST_DIR}/sample_text_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/iteration_json_test.cpp
  LIBS solscope::wire nlohmann_json::nlohmann_json)

# Issue 18, defect 1: every JSON writer replaces invalid UTF-8 instead of throwing.
add_test(NAME wire.json_text_everywhere
         COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR} -P ${CMAKE_CURRENT_LIST_DIR}/check_json_text.cmake)
set_tests_properties(wire.json_text_everywhere PROPERTIES LABELS wire)
