# Tests of src/net: the loopback and remote HTTP clients against local cpp-httplib servers on 127.0.0.1
# (tests/workload/workload_test_support.hpp's stub) and hostile raw-socket servers (request_bounds_test.cpp), the loopback rule, token files, the Prometheus text and
# query-answer readers, and dcgm-exporter scrapes as samples (tests/data/real and SYNTHETIC fixtures).
solscope_add_test(net
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/dcgm_exposition_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/dcgm_mig_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/http_client_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/loopback_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/prom_query_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/prometheus_text_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/remote_http_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/request_bounds_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/token_file_test.cpp
  LIBS solscope::net solscope::core solscope_httplib Threads::Threads)
