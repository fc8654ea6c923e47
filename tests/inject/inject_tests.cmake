# The kernel wire (encoder, streaming decoder) and, with the CUPTI headers, the injection library's activity-buffer
# parsing and non-blocking writer (included by tests/CMakeLists.txt; label `inject`).
set(solscope_inject_test_sources ${CMAKE_CURRENT_LIST_DIR}/kernel_wire_test.cpp)
set(solscope_inject_test_libs solscope::kernel_wire)
if(TARGET solscope_inject_parts)
  list(APPEND solscope_inject_test_sources ${CMAKE_CURRENT_LIST_DIR}/activity_parse_test.cpp
       ${CMAKE_CURRENT_LIST_DIR}/marker_parse_test.cpp ${CMAKE_CURRENT_LIST_DIR}/pipe_writer_test.cpp
       ${CMAKE_CURRENT_LIST_DIR}/injection_library_test.cpp)
  set(solscope_inject_test_libs solscope_inject_parts)
endif()
solscope_add_test(inject SOURCES ${solscope_inject_test_sources} LIBS ${solscope_inject_test_libs})
if(TARGET solscope_inject)
  # The test dlopens the built libsolscope_inject.so as the CUDA driver would.
  add_dependencies(solscope_inject_test solscope_inject)
  target_compile_definitions(solscope_inject_test PRIVATE SOLSCOPE_INJECT_LIBRARY="$<TARGET_FILE:solscope_inject>")
endif()
