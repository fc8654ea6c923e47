# solscope_read_raw_string(<file> <delimiter> <out_var>): the text of <file>, to be embedded at configure time in
# a C++ raw string literal R"<delimiter>(...)<delimiter>". A file containing the closing sequence )<delimiter>"
# stops the configure step, naming the file; the file becomes a configure dependency of the calling folder, so
# that editing it re-runs CMake.
function(solscope_read_raw_string file delimiter out_var)
  file(READ ${file} text)
  string(FIND "${text}" ")${delimiter}\"" delimiter_at)
  if(NOT delimiter_at EQUAL -1)
    message(FATAL_ERROR "solscope: ${file} contains the raw-string delimiter ')${delimiter}\"'")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()
