# Fails when the fleet reader (src/fleet) includes a header of a layer above or beside it (app, tui, server):
# it is a source-level layer on core, wire and workload, shown by the terminal view and the web dashboard.
include(${CMAKE_CURRENT_LIST_DIR}/../scan_sources.cmake)
scan_sources(bad "#include \"(app|tui|server|trace|sources)/" fleet)
if(bad)
  message(FATAL_ERROR "src/fleet includes a header of another layer (core, wire and workload only):\n${bad}")
endif()
message(STATUS "src/fleet includes core, wire and workload only")
