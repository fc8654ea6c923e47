# Issue 10, item 23: errors-as-values have one spelling. Fails when
#  1. a file under src/, tests/, fuzz/ or bench/ other than src/core/result.hpp names tl::expected or
#     tl::unexpected (the library stays behind core::Expected, core::Unexpected, core::fail and core::propagate);
#  2. a dropped Result compiles: core::Result is [[nodiscard]] as a type, so discarding any function's Result is
#     an error under -Werror, whether or not the function itself says [[nodiscard]].
# Run: cmake -DROOT=<repo> -DCXX=<c++ compiler> -DWORK=<scratch dir> -P check_result_spelling.cmake
cmake_minimum_required(VERSION 3.20)
if(NOT ROOT OR NOT CXX OR NOT WORK)
  message(FATAL_ERROR "pass -DROOT=<repository root> -DCXX=<compiler> -DWORK=<scratch dir>")
endif()

set(leaks "")
foreach(dir src tests fuzz bench)
  file(GLOB_RECURSE files "${ROOT}/${dir}/*.cpp" "${ROOT}/${dir}/*.hpp")
  foreach(f IN LISTS files)
    if(f STREQUAL "${ROOT}/src/core/result.hpp")
      continue()
    endif()
    file(STRINGS "${f}" hits REGEX "tl::(un)?expected")
    if(hits)
      file(RELATIVE_PATH rel "${ROOT}" "${f}")
      list(APPEND leaks "${rel}")
    endif()
  endforeach()
endforeach()
if(leaks)
  list(JOIN leaks "\n  " shown)
  message(FATAL_ERROR "tl::expected/tl::unexpected named outside src/core/result.hpp (use core::Expected, "
                      "core::fail, core::propagate):\n  ${shown}")
endif()

file(MAKE_DIRECTORY "${WORK}")
set(probe "${WORK}/dropped_result.cpp")
file(WRITE "${probe}" "#include \"core/result.hpp\"\n"
                      "solscope::core::Result<int> may_fail();  // no [[nodiscard]] on the function\n"
                      "void caller() { may_fail(); }\n")
execute_process(COMMAND "${CXX}" -std=c++20 -fsyntax-only -Werror -I "${ROOT}/src" "${probe}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "a dropped core::Result compiled without an error: core::Result must be [[nodiscard]]")
endif()
if(NOT err MATCHES "nodiscard|unused-result|ignoring return")
  message(FATAL_ERROR "the dropped-Result probe failed for another reason:\n${err}")
endif()
message(STATUS "result spelling: no tl:: outside core/result.hpp; a dropped Result is a compile error")
