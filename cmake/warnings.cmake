# Compiler warnings and sanitizers, applied to every solscope target through solscope_options.
add_library(solscope_options INTERFACE)
target_compile_options(solscope_options INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                                  -Wno-sign-conversion -Wnon-virtual-dtor
                                                  -Wno-missing-field-initializers)
if(SOLSCOPE_WERROR)
  target_compile_options(solscope_options INTERFACE -Werror)
endif()
if(SOLSCOPE_SANITIZE)
  target_compile_options(solscope_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                                                    -fno-sanitize-recover=undefined)
  target_link_options(solscope_options INTERFACE -fsanitize=address,undefined)
endif()
if(SOLSCOPE_FUZZ)
  # libFuzzer's coverage instrumentation on every library (its runtime is linked only into the fuzz targets,
  # fuzz/CMakeLists.txt), and the sanitizers that turn a defect into a finding.
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "solscope: SOLSCOPE_FUZZ needs clang (libFuzzer): use the preset `fuzz` "
                        "(scripts/setup.sh installs the Debian packages clang and libclang-rt-dev)")
  endif()
  target_compile_options(solscope_options INTERFACE -fsanitize=fuzzer-no-link,address,undefined
                                                    -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(solscope_options INTERFACE -fsanitize=address,undefined)
endif()
target_compile_definitions(solscope_options INTERFACE SOLSCOPE_VERSION="${PROJECT_VERSION}")
