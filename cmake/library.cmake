# solscope_add_library(<name> SOURCES <file>... [PUBLIC <dependency>...] [PRIVATE <dependency>...]): one layer's
# static library, declared the same way in every folder: solscope_<name>, its alias solscope::<name>, src/ as its
# public include directory (headers are included as "<layer>/<file>.hpp"), the PUBLIC and PRIVATE dependencies,
# and the project's warnings (solscope_options) privately. Relative SOURCES are relative to the calling folder.
# Anything else a library needs (system include directories, definitions, properties) follows the call.
function(solscope_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC;PRIVATE" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "solscope_add_library(${name}): give only SOURCES, PUBLIC and PRIVATE lists (SOURCES may "
                        "also come later, through target_sources) (unexpected: ${ARG_UNPARSED_ARGUMENTS})")
  endif()
  add_library(solscope_${name} STATIC ${ARG_SOURCES})
  add_library(solscope::${name} ALIAS solscope_${name})
  target_include_directories(solscope_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  set(public "")
  if(ARG_PUBLIC)
    set(public PUBLIC ${ARG_PUBLIC})
  endif()
  target_link_libraries(solscope_${name} ${public} PRIVATE ${ARG_PRIVATE} solscope_options)
endfunction()
