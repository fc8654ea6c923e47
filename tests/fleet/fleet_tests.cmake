# Tests of the fleet reader (src/fleet): the pure arithmetic, and the Prometheus reader against a stub client
# answering canned API JSON (synthetic figures), and over the real client against the fake Prometheus
# (tests/support/fake_prometheus.hpp). The real Prometheus is in tests/integration (fleet_test.py).
solscope_add_test(fleet
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/fleet_iteration_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/fleet_json_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/fleet_math_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/fleet_post_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/prometheus_fleet_test.cpp
  LIBS solscope::fleet solscope::net solscope_httplib fmt::fmt nlohmann_json::nlohmann_json Threads::Threads)
