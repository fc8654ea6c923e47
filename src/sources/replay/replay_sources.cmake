# solscope_replay: TraceReplaySource, a CounterSource over a recorded trace.
add_library(solscope_replay STATIC ${CMAKE_CURRENT_LIST_DIR}/trace_replay_source.cpp)
add_library(solscope::replay ALIAS solscope_replay)
target_include_directories(solscope_replay PUBLIC ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(solscope_replay PUBLIC solscope::sources solscope::trace PRIVATE solscope_options)
