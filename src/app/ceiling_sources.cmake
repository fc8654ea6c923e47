# The `solscope ceiling` command's sources (the app layer includes this list).
set(SOLSCOPE_CEILING_APP_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/ceiling_command.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ceiling_report.cpp)
