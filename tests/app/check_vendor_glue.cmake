# Fails when the app reaches a vendor source other than through CounterSource and its capabilities: a
# dynamic_cast, an #ifdef on the NVIDIA build, or a vendor source header outside the one glue file
# (src/app/gpu_backend_nvidia.cpp, chosen by CMake). Issue 10, item 19.
set(bad "")
file(GLOB_RECURSE files "${ROOT}/src/app/*.hpp" "${ROOT}/src/app/*.cpp")
foreach(f IN LISTS files)
  file(STRINGS "${f}" casts REGEX "dynamic_cast|SOLSCOPE_HAVE_NVIDIA")
  foreach(line IN LISTS casts)
    string(APPEND bad "  ${f}: ${line}\n")
  endforeach()
  if(NOT f MATCHES "gpu_backend_nvidia\\.cpp$")
    file(STRINGS "${f}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]sources/nvidia/")
    foreach(line IN LISTS includes)
      string(APPEND bad "  ${f}: ${line}\n")
    endforeach()
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "the app works around the CounterSource interface (use its capabilities, or the glue "
                      "file src/app/gpu_backend_nvidia.cpp):\n${bad}")
endif()
message(STATUS "the app reaches vendor sources only through CounterSource and gpu_backend_*.cpp")
