# SYNTHETIC trace data for tests: a generator library and a command-line tool. Included by the trace and replay
# test fragments; defined once.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/scenarios.cmake)
add_library(solscope_synthetic_trace STATIC ${CMAKE_CURRENT_LIST_DIR}/synthetic_trace.cpp
                                            ${CMAKE_CURRENT_LIST_DIR}/profiles.cpp
                                            ${CMAKE_CURRENT_LIST_DIR}/kernels.cpp
                                            ${CMAKE_CURRENT_LIST_DIR}/iteration_trace.cpp
                                            ${CMAKE_CURRENT_LIST_DIR}/workloads.cpp
                                            ${CMAKE_CURRENT_LIST_DIR}/workloads_trace.cpp
                                            ${CMAKE_CURRENT_LIST_DIR}/dp_step_trace.cpp)
target_include_directories(solscope_synthetic_trace PUBLIC ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(solscope_synthetic_trace PUBLIC solscope::trace solscope_synthetic_scenarios PRIVATE solscope_options)

add_executable(solscope_make_synthetic_trace ${CMAKE_CURRENT_LIST_DIR}/make_synthetic_trace.cpp)
target_link_libraries(solscope_make_synthetic_trace PRIVATE solscope_synthetic_trace solscope_options)
