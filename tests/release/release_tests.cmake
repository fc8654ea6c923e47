# The release (label `package`; docs/release.md section 5): scripts/package.sh on the CI build (a portable
# preset), the bundle's promises, a clean Debian 12 root, the launcher on an old glibc, and the container image.
# The debootstrap root is cached in build/package-cache/ between runs.
if(NOT SOLSCOPE_PORTABLE)
  return()  # only a portable build (the ci and bundle presets) is what the release ships
endif()
set(solscope_pkg_dist ${PROJECT_BINARY_DIR}/package-dist)
set(solscope_pkg_cache ${PROJECT_SOURCE_DIR}/build/package-cache)
string(REGEX REPLACE "^.*/build/([^/]+)$" "\\1" solscope_pkg_preset "${PROJECT_BINARY_DIR}")
add_test(NAME package.bundle COMMAND ${PROJECT_SOURCE_DIR}/scripts/package.sh --preset ${solscope_pkg_preset}
                                     --out ${solscope_pkg_dist} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(package.bundle PROPERTIES LABELS package TIMEOUT 300 FIXTURES_SETUP solscope_dist RUN_SERIAL TRUE)
foreach(test clean_system container old_glibc)
  add_test(NAME package.${test} COMMAND ${PROJECT_SOURCE_DIR}/tests/release/${test}_test.sh ${solscope_pkg_dist}
                                        ${solscope_pkg_cache} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(package.${test} PROPERTIES LABELS package TIMEOUT 300 FIXTURES_REQUIRED solscope_dist
                                                  SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
endforeach()
