# Fails when the network plumbing (src/net) includes a header of any layer but core (and the header-only JSON
# field readers of src/json): every layer that talks to a service uses net, so net uses none of them.
include(${CMAKE_CURRENT_LIST_DIR}/../scan_sources.cmake)
scan_sources(found "#include \"[a-z_]+/" net)
string(REGEX REPLACE "[^\n]*#include \"(core|json|net)/[^\n]*\n" "" bad "${found}")
if(bad)
  message(FATAL_ERROR "src/net includes a header of another layer (core only):\n${bad}")
endif()
message(STATUS "src/net includes core only")
