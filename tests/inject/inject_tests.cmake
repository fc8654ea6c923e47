# The kernel wire (encoder, streaming decoder) and, with the CUPTI headers, the injection library's activity-buffer
# parsing and non-blocking writer (included by tests/CMakeLists.txt; label `inject`).
set(solscope_inject_test_sources ${CMAKE_CURRENT_LIST_DIR}/kernel_wire_test.cpp)
set(solscope_inject_test_libs solscope::kernel_wire)
solscope_add_test(inject SOURCES ${solscope_inject_test_sources} LIBS ${solscope_inject_test_libs})
