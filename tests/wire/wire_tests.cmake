# Tests of the wire room (src/wire): the JSON number rule, tolerant field reads and the window's JSON shape.
# The round trips of samples and devices through a daemon's answers are in tests/server (sample_json_test.cpp).
solscope_add_test(wire
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/wire_test.cpp
  LIBS solscope::wire nlohmann_json::nlohmann_json)
