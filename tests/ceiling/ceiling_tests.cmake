# The ceiling layer's tests (included by tests/CMakeLists.txt); the `solscope ceiling` command's tests are in
# tests/app.
solscope_add_test(ceiling
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/activity_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/attention_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/capacity_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/ceiling_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/dtype_provenance_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/efficiency_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/gemm_family_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/gpu_spec_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/kv_bytes_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/measured_rows.cpp
    ${CMAKE_CURRENT_LIST_DIR}/measured_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/mig_spec_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/model_arch_2026_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/model_config_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/operators_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/parallel_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/serving_test.cpp
  LIBS solscope::ceiling nlohmann_json::nlohmann_json fmt::fmt)
