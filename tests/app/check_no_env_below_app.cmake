# Fails when a layer below the app (core, wire, ceiling, trace, server, tui, sources, workload, fleet) reads an
# environment variable: the app reads them (src/app/config) and passes the values in.
include(${CMAKE_CURRENT_LIST_DIR}/../scan_sources.cmake)
scan_sources(bad "getenv" core wire ceiling trace server tui sources workload fleet)
if(bad)
  message(FATAL_ERROR "environment read below the app layer (pass the value in from src/app):\n${bad}")
endif()
message(STATUS "no layer below the app reads the environment")
