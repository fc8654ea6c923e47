# Fails when a tracked C++ file differs from what clang-format (the repo's .clang-format) makes of it.
find_program(CLANG_FORMAT NAMES clang-format clang-format-14 clang-format-15 clang-format-16)
if(NOT CLANG_FORMAT)
  message(STATUS "clang-format not installed: format check skipped")
  return()
endif()
file(GLOB_RECURSE files "${ROOT}/src/*.cpp" "${ROOT}/src/*.hpp" "${ROOT}/tests/*.cpp" "${ROOT}/tests/*.hpp"
     "${ROOT}/bench/*.cpp" "${ROOT}/tools/*.cpp")
execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror ${files} RESULT_VARIABLE rc ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "files not formatted (run clang-format -i on them):\n${out}")
endif()
