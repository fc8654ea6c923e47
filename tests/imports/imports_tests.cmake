# Tests of src/imports: recordings of other tools read as solscope samples. Fixtures: tests/data/real (scrapes
# pasted in public issues, sources in its README) and tests/data/synthetic/dcgm-exporter (SYNTHETIC edge cases).
solscope_add_test(imports
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/dcgm_exposition_test.cpp
  LIBS solscope::imports solscope::core)
