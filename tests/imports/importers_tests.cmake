# Tests of `solscope import` (src/imports importers, src/cli/import/import_command.cpp): each importer over real and
# SYNTHETIC fixtures (tests/data/real/<format>, tests/data/synthetic/<format>), and the command end to end.
solscope_add_test(importers
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/text_importers_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/import_integrity_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/streaming_import_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/nsys_import_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/import_cli_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/../support/process.cpp
  LIBS solscope::imports solscope::net solscope::trace solscope::core SQLite::SQLite3 nlohmann_json::nlohmann_json)
if(TARGET solscope)
  target_compile_definitions(solscope_importers_test PRIVATE SOLSCOPE_BINARY="$<TARGET_FILE:solscope>")
  add_dependencies(solscope_importers_test solscope)
endif()
