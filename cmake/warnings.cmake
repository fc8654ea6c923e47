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
target_compile_definitions(solscope_options INTERFACE SOLSCOPE_VERSION="${PROJECT_VERSION}")
