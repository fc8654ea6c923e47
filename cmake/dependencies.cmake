# Third-party dependencies: Debian packages only (scripts/setup.sh installs them).
# A missing one stops the configure step with the package to install.
function(solscope_require pkg debian)
  find_package(${pkg} ${ARGN} QUIET)
  if(NOT ${pkg}_FOUND)
    message(FATAL_ERROR "solscope: ${pkg} not found: install the Debian package ${debian} "
                        "(scripts/setup.sh installs everything the build needs)")
  endif()
endfunction()

find_package(Threads REQUIRED)
solscope_require(tl-expected libexpected-dev)
solscope_require(nlohmann_json nlohmann-json3-dev)
solscope_require(CLI11 libcli11-dev)
if(SOLSCOPE_PORTABLE)
  include(${CMAKE_CURRENT_LIST_DIR}/portable.cmake)
else()
  solscope_require(fmt libfmt-dev)
  solscope_require(spdlog libspdlog-dev)
  solscope_require(tomlplusplus libtomlplusplus-dev)
endif()
find_package(SQLite3 REQUIRED)
if(SOLSCOPE_PORTABLE)  # the static archive's own needs
  set_property(TARGET SQLite::SQLite3 APPEND PROPERTY INTERFACE_LINK_LIBRARIES ${CMAKE_DL_LIBS} m Threads::Threads)
endif()

# ncursesw (wide-character curses) for the terminal view: Debian's libncurses-dev.
set(CURSES_NEED_WIDE TRUE)
find_package(Curses QUIET)
if(NOT CURSES_FOUND)
  message(FATAL_ERROR "solscope: ncursesw not found: install the Debian package libncurses-dev "
                      "(scripts/setup.sh installs everything the build needs)")
endif()
if(SOLSCOPE_PORTABLE)
  solscope_static_curses()
endif()

# prometheus-cpp core (Collectable, TextSerializer) for /metrics: Debian's prometheus-cpp-dev.
solscope_require(prometheus-cpp prometheus-cpp-dev CONFIG)

# cpp-httplib, tried in this order:
#  1. upstream's CMake package (httplib::httplib), when installed from source;
#  2. pkg-config: Debian's libcpp-httplib-dev ships no CMake package but a declarations-only httplib.h, a compiled
#     libcpp-httplib.so and cpp-httplib.pc, whose Cflags carry the feature macros (CPPHTTPLIB_OPENSSL_SUPPORT,
#     _ZLIB_, _BROTLI_) the library was built with; the header's class layouts depend on them, so they must match;
#  3. find_path(httplib.h): a single-header (header-only) httplib, used as is, or with a libcpp-httplib next to it
#     (then Debian's macros are assumed).
# The net layer (HTTP clients) and the server link solscope_httplib.
if(NOT TARGET solscope_httplib)
  add_library(solscope_httplib INTERFACE)
  find_package(httplib CONFIG QUIET)
  if(NOT TARGET httplib::httplib)
    find_package(PkgConfig QUIET)
    if(PkgConfig_FOUND)
      pkg_check_modules(SOLSCOPE_CPP_HTTPLIB QUIET IMPORTED_TARGET cpp-httplib)
    endif()
  endif()
  if(TARGET httplib::httplib)
    target_link_libraries(solscope_httplib INTERFACE httplib::httplib Threads::Threads)
  elseif(TARGET PkgConfig::SOLSCOPE_CPP_HTTPLIB)
    target_link_libraries(solscope_httplib INTERFACE PkgConfig::SOLSCOPE_CPP_HTTPLIB Threads::Threads)
  else()
    find_path(SOLSCOPE_HTTPLIB_INCLUDE_DIR httplib.h)
    if(NOT SOLSCOPE_HTTPLIB_INCLUDE_DIR)
      message(FATAL_ERROR "solscope: cpp-httplib not found: install the Debian package libcpp-httplib-dev "
                          "(scripts/setup.sh installs everything the build needs)")
    endif()
    target_include_directories(solscope_httplib SYSTEM INTERFACE ${SOLSCOPE_HTTPLIB_INCLUDE_DIR})
    find_library(SOLSCOPE_HTTPLIB_LIBRARY cpp-httplib)
    if(SOLSCOPE_HTTPLIB_LIBRARY)
      target_link_libraries(solscope_httplib INTERFACE ${SOLSCOPE_HTTPLIB_LIBRARY})
      target_compile_definitions(solscope_httplib INTERFACE CPPHTTPLIB_OPENSSL_SUPPORT CPPHTTPLIB_ZLIB_SUPPORT
                                                            CPPHTTPLIB_BROTLI_SUPPORT)
    endif()
    target_link_libraries(solscope_httplib INTERFACE Threads::Threads)
  endif()
endif()


# gRPC and protobuf for the kubelet's PodResources client (src/workload/pod_resources.cpp): Debian's
# libgrpc++-dev and libprotobuf-dev, with protoc (protobuf-compiler) and grpc_cpp_plugin (protobuf-compiler-grpc),
# which generate the client from proto/podresources/v1/api.proto at build time (src/workload/CMakeLists.txt).
# gRPC through pkg-config (grpc++.pc), the interface Debian documents for it. A portable build links the static
# archives Debian ships beside the shared libraries (pkg-config --static), so the bundle needs no libgrpc on the
# user's machine; glibc's own libraries stay shared.
solscope_require(Protobuf libprotobuf-dev)
if(NOT Protobuf_PROTOC_EXECUTABLE)
  message(FATAL_ERROR "solscope: protoc not found: install the Debian package protobuf-compiler "
                      "(scripts/setup.sh installs everything the build needs)")
endif()
find_program(SOLSCOPE_GRPC_CPP_PLUGIN grpc_cpp_plugin)
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(SOLSCOPE_GRPCXX QUIET grpc++)
endif()
if(NOT SOLSCOPE_GRPC_CPP_PLUGIN OR NOT SOLSCOPE_GRPCXX_FOUND)
  message(FATAL_ERROR "solscope: gRPC not found: install the Debian packages libgrpc++-dev and "
                      "protobuf-compiler-grpc (scripts/setup.sh installs everything the build needs)")
endif()
if(NOT TARGET solscope_grpc)
  add_library(solscope_grpc INTERFACE)
  if(SOLSCOPE_GRPCXX_INCLUDE_DIRS)  # empty for /usr/include
    target_include_directories(solscope_grpc SYSTEM INTERFACE ${SOLSCOPE_GRPCXX_INCLUDE_DIRS})
  endif()
  if(SOLSCOPE_PORTABLE)
    # Every library of `pkg-config --static --libs grpc++` as its archive, but glibc's and the compiler's.
    set(_grpc_static "")
    foreach(_lib IN LISTS SOLSCOPE_GRPCXX_STATIC_LIBRARIES)
      if(NOT _lib MATCHES "^(m|dl|rt|pthread|c|atomic)$")
        list(APPEND _grpc_static "-l${_lib}")
      endif()
    endforeach()
    find_library(SOLSCOPE_PROTOBUF_A NAMES libprotobuf.a REQUIRED)
    target_link_libraries(solscope_grpc INTERFACE -Wl,--push-state,-Bstatic ${_grpc_static} -Wl,--pop-state
                                                  ${SOLSCOPE_PROTOBUF_A} Threads::Threads ${CMAKE_DL_LIBS} rt)
  else()
    target_link_libraries(solscope_grpc INTERFACE ${SOLSCOPE_GRPCXX_LINK_LIBRARIES} protobuf::libprotobuf
                                                  Threads::Threads)
  endif()
endif()

# CUDA toolkit headers (cupti_*.h, cuda.h) for the NVIDIA source's parameter structs. No NVIDIA library is
# linked: libcupti, libcuda and libnvidia-ml are dlopen'ed at run time.
find_path(SOLSCOPE_CUPTI_INCLUDE_DIR cupti_pmsampling.h
          HINTS ENV SOLSCOPE_CUDA_HOME ENV CUDA_HOME ENV CUDA_PATH
          PATH_SUFFIXES include extras/CUPTI/include
          PATHS /usr/local/cuda /usr/local/cuda-13.0 /usr/local/cuda-12.8 /usr/local/cuda-12.6)
if(SOLSCOPE_CUPTI_INCLUDE_DIR AND EXISTS "${SOLSCOPE_CUPTI_INCLUDE_DIR}/cuda.h")
  set(SOLSCOPE_HAVE_CUPTI_HEADERS ON)
  message(STATUS "solscope: CUPTI headers in ${SOLSCOPE_CUPTI_INCLUDE_DIR}")
else()
  set(SOLSCOPE_HAVE_CUPTI_HEADERS OFF)
  message(WARNING "solscope: CUDA toolkit headers (cupti_pmsampling.h, cuda.h) not found: building without the "
                  "NVIDIA source (replay only). Install the CUDA toolkit >= 12.6 or set CUDA_HOME.")
endif()
