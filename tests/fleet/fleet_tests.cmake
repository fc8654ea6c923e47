# Tests of the fleet reader (src/fleet): the pure arithmetic, and the Prometheus reader against a stub client
# answering canned API JSON (synthetic figures). The real Prometheus is in tests/integration (fleet_test.py).
solscope_add_test(fleet
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/fleet_json_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/fleet_math_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/prometheus_fleet_test.cpp
  LIBS solscope::fleet fmt::fmt nlohmann_json::nlohmann_json)
add_test(NAME fleet.layer
         COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR} -P ${CMAKE_CURRENT_LIST_DIR}/check_fleet_layer.cmake)
set_tests_properties(fleet.layer PROPERTIES LABELS fleet)
