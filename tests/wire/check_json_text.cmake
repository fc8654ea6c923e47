# Issue 18, defect 1: no JSON writer can throw nlohmann's type_error.316 on text that is not UTF-8. Fails when
# a file under src/ calls nlohmann's dump() without the replacing error handler: every writer goes through
# wire::json_text (src/wire/json_text.hpp), and the one room that may not include it (ceiling) passes
# error_handler_t::replace itself.
# Run: cmake -DROOT=<repo> -P check_json_text.cmake
cmake_minimum_required(VERSION 3.20)
if(NOT ROOT)
  message(FATAL_ERROR "pass -DROOT=<repository root>")
endif()

set(strict "")
file(GLOB_RECURSE files "${ROOT}/src/*.cpp" "${ROOT}/src/*.hpp")
foreach(f IN LISTS files)
  file(READ "${f}" text)
  # One list item per line: `;` and brackets in code would split or join CMake list items.
  string(REGEX REPLACE "[][;]" "," text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  list(FILTER lines INCLUDE REGEX "\\.dump\\(")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "error_handler_t::replace")
      file(RELATIVE_PATH rel "${ROOT}" "${f}")
      string(STRIP "${line}" line)
      list(APPEND strict "${rel}: ${line}")
    endif()
  endforeach()
endforeach()
if(strict)
  list(JOIN strict "\n  " shown)
  message(FATAL_ERROR "JSON written without the replacing error handler (a string that is not UTF-8 would "
                      "throw type_error.316); write through wire::json_text:\n  ${shown}")
endif()
message(STATUS "json text: every dump() under src/ replaces invalid UTF-8")
