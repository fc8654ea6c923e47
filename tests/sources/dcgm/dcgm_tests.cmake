# Tests of the dcgm-exporter live source (src/sources/dcgm) against a local cpp-httplib server replaying
# SYNTHETIC scrapes (tests/support/dcgm_exporter_stub.hpp).
solscope_add_test(dcgm
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/dcgm_exporter_source_test.cpp
  LIBS solscope::dcgm_source solscope_httplib Threads::Threads)
