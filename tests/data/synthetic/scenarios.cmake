# SYNTHETIC scenarios that need the core only (library solscope_synthetic_scenarios): the core tests link
# them without the trace library; synthetic.cmake's generator writes them as traces. Defined once.
include_guard(GLOBAL)
add_library(solscope_synthetic_scenarios STATIC ${CMAKE_CURRENT_LIST_DIR}/dp_step.cpp
                                                 ${CMAKE_CURRENT_LIST_DIR}/iteration_load.cpp)
target_include_directories(solscope_synthetic_scenarios PUBLIC ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(solscope_synthetic_scenarios PUBLIC solscope::core PRIVATE solscope_options)
