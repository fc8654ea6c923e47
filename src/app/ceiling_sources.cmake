# The `solscope ceiling` command's sources (the app layer includes this list; tests/ceiling compiles it too).
set(SOLSCOPE_CEILING_APP_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/ceiling_command.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ceiling_report.cpp)
