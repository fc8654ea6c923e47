# The ceiling layer's tests (included by tests/CMakeLists.txt). The `solscope ceiling` command's sources are
# compiled in too, so that its I/O and messages are tested without the rest of the app.
include(${PROJECT_SOURCE_DIR}/src/app/ceiling_sources.cmake)
solscope_add_test(ceiling
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/ceiling_command_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/ceiling_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/efficiency_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/gpu_spec_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/model_config_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/operators_test.cpp
    ${SOLSCOPE_CEILING_APP_SOURCES}
    ${PROJECT_SOURCE_DIR}/src/app/messages.cpp
  LIBS solscope::ceiling CLI11::CLI11 fmt::fmt nlohmann_json::nlohmann_json)
