# Tests of workload discovery (src/workload): fake procfs trees (tests/data/procfs) and a local HTTP stub
# (cpp-httplib on 127.0.0.1) serving engine-shaped responses (tests/data/engines), and an in-process gRPC kubelet
# (PodResources on a Unix socket) answering from tests/data/synthetic/kubelet-pod-resources. All fixtures are
# synthetic.
solscope_add_test(workload
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/cgroup_layout_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/config_declaration_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/discovery_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/endpoint_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/engine_cmdline_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/engine_layout_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/job_mapping_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pod_resources_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/process_info_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/profiler_scan_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/prometheus_live_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/serve_live_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/workload_resolver_test.cpp
  LIBS solscope::workload solscope_podresources_proto solscope_httplib Threads::Threads)
