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
solscope_require(fmt libfmt-dev)
solscope_require(spdlog libspdlog-dev)
solscope_require(nlohmann_json nlohmann-json3-dev)
solscope_require(CLI11 libcli11-dev)
find_package(SQLite3 REQUIRED)

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
