# The calibration kernels of `solscope check` (src/check): expected-value math, launch shapes, the PTX loop
# counts, and every PTX file assembled by the CUDA toolkit's ptxas (included by tests/CMakeLists.txt).
solscope_add_test(check
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/expected_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/kernels_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/ptx_count_test.cpp
  LIBS solscope::check)

find_program(SOLSCOPE_PTXAS ptxas HINTS /usr/local/cuda/bin)
if(NOT SOLSCOPE_PTXAS)
  set(SOLSCOPE_PTXAS "")
endif()
add_test(NAME check.ptxas_assemble
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/ptxas_assemble.sh "${SOLSCOPE_PTXAS}"
                 ${PROJECT_SOURCE_DIR}/src/check/kernels ${CMAKE_CURRENT_BINARY_DIR}/ptxas_assemble)
set_tests_properties(check.ptxas_assemble PROPERTIES LABELS check SKIP_RETURN_CODE 77)
