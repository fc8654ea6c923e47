# Server tests: units (auth, API queries, /metrics, stream queues, SSE parsing, JSON) and a live in-process
# server on an ephemeral loopback port (endpoints, bad input, limits, TLS, the remote feed).
if(TARGET solscope_server)
  solscope_add_test(server
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/auth_test.cpp ${CMAKE_CURRENT_LIST_DIR}/api_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/metrics_test.cpp ${CMAKE_CURRENT_LIST_DIR}/metrics_mig_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/metrics_workload_test.cpp ${CMAKE_CURRENT_LIST_DIR}/metrics_iteration_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/iteration_api_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/workload_json_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/event_stream_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/sse_parser_test.cpp ${CMAKE_CURRENT_LIST_DIR}/sample_json_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/http_server_test.cpp ${CMAKE_CURRENT_LIST_DIR}/http_limits_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/http_hardening_test.cpp ${CMAKE_CURRENT_LIST_DIR}/tls_files_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/remote_feed_test.cpp ${CMAKE_CURRENT_LIST_DIR}/fleet_api_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/stream_window_test.cpp ${CMAKE_CURRENT_LIST_DIR}/http_compression_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/profiling_api_test.cpp
    LIBS solscope::server solscope::wire solscope::trace solscope_httplib nlohmann_json::nlohmann_json Threads::Threads)
  # A SYNTHETIC daemon whose GPUs hold workloads, for the dashboard's browser test (integration.dashboard_browser).
  add_executable(solscope_workload_dashboard_server ${CMAKE_CURRENT_LIST_DIR}/workload_dashboard_server.cpp)
  target_include_directories(solscope_workload_dashboard_server PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(solscope_workload_dashboard_server PRIVATE solscope::server Threads::Threads solscope_options)
endif()
