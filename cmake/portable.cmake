# The release bundle's libraries (SOLSCOPE_PORTABLE; docs/release.md section 2): nothing but glibc is left to the
# user's machine. Header-only where the library allows it (fmt, toml++, cpp-httplib), static archives where Debian
# ships one (SQLite, ncursesw, OpenSSL, zlib), and the static prometheus-cpp core and header-only cpp-httplib that
# scripts/package/third_party.sh builds from Debian's source packages into SOLSCOPE_THIRD_PARTY_PREFIX.
set(SOLSCOPE_THIRD_PARTY_PREFIX "${PROJECT_SOURCE_DIR}/build/third_party/prefix"
    CACHE PATH "where scripts/package/third_party.sh installed the static third-party libraries")
# The script is cached (it does nothing when the installed Debian versions are built already).
execute_process(COMMAND ${PROJECT_SOURCE_DIR}/scripts/package/third_party.sh ${SOLSCOPE_THIRD_PARTY_PREFIX}
                RESULT_VARIABLE _third_party_rc)
if(NOT _third_party_rc EQUAL 0 OR NOT EXISTS "${SOLSCOPE_THIRD_PARTY_PREFIX}/lib/libprometheus-cpp-core.a")
  message(FATAL_ERROR "solscope: SOLSCOPE_PORTABLE needs the static third-party libraries in "
                      "${SOLSCOPE_THIRD_PARTY_PREFIX}: scripts/package/third_party.sh failed (see above)")
endif()
list(PREPEND CMAKE_PREFIX_PATH "${SOLSCOPE_THIRD_PARTY_PREFIX}")
set(OPENSSL_USE_STATIC_LIBS TRUE)
set(ZLIB_USE_STATIC_LIBS TRUE)

# solscope_header_only(<target> <header> <definition>): an INTERFACE target under the name the code links.
function(solscope_header_only target header definition)
  find_path(_dir ${header} NO_CACHE)
  if(NOT _dir)
    message(FATAL_ERROR "solscope: ${header} not found for the portable build")
  endif()
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_dir}"
                                             INTERFACE_COMPILE_DEFINITIONS "${definition}")
endfunction()
solscope_header_only(fmt::fmt fmt/format-inl.h FMT_HEADER_ONLY=1)
solscope_header_only(tomlplusplus::tomlplusplus toml++/toml.h TOML_HEADER_ONLY=1)

find_library(SQLite3_LIBRARY NAMES libsqlite3.a REQUIRED)

# solscope_static_curses(): ncursesw and its terminfo reader as static archives (after find_package(Curses)).
macro(solscope_static_curses)
  find_library(SOLSCOPE_NCURSESW_A NAMES libncursesw.a REQUIRED)
  find_library(SOLSCOPE_TINFO_A NAMES libtinfo.a REQUIRED)
  set(CURSES_LIBRARIES ${SOLSCOPE_NCURSESW_A} ${SOLSCOPE_TINFO_A})
endmacro()

# solscope_portable_link(<target>): an executable or shared library of the bundle links the C++ runtime in and the
# glibc-floor shims (src/platform/glibc_floor.cpp).
function(solscope_portable_link target)
  target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
  target_link_libraries(${target} PRIVATE solscope_glibc_floor)
endfunction()
