# Fails when a file under src/core, src/wire, src/ceiling, src/check or src/report includes an I/O, clock or vendor
# header.
set(forbidden "cuda|cupti|nvml|nvperf|sys/socket|netinet|sqlite3|fstream|iostream|cstdio|stdio\\.h|chrono|ncurses|curses|httplib|dlfcn|unistd|thread|filesystem")
include(${CMAKE_CURRENT_LIST_DIR}/../scan_sources.cmake)
scan_sources(bad "^[ \t]*#[ \t]*include[ \t]*[<\"](${forbidden})" core wire ceiling check report)
if(bad)
  message(FATAL_ERROR "I/O or vendor headers inside the pure layers (src/core, src/wire, src/ceiling, src/check, src/report):\n${bad}")
endif()
message(STATUS "pure layers include no I/O or vendor header")
