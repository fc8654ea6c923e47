# scan_sources(OUT REGEX LAYER...): sets OUT to one "  FILE: LINE\n" entry for every line matching REGEX in
# ${ROOT}/src/LAYER/*.hpp and *.cpp (recursively), for each LAYER; empty when none matches. Used by the layer
# rule checks run with `cmake -DROOT=<source dir> -P` (tests/core/check_purity.cmake,
# tests/app/check_no_env_below_app.cmake).
function(scan_sources out regex)
  set(found "")
  foreach(layer IN LISTS ARGN)
    file(GLOB_RECURSE files "${ROOT}/src/${layer}/*.hpp" "${ROOT}/src/${layer}/*.cpp")
    foreach(f IN LISTS files)
      file(STRINGS "${f}" lines REGEX "${regex}")
      foreach(line IN LISTS lines)
        string(APPEND found "  ${f}: ${line}\n")
      endforeach()
    endforeach()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()
