# CUPTI PM-sampling tests (included by tests/CMakeLists.txt): the host-API config check against the real
# libcupti (skips without one) and the PmSampler driven by the fake CUPTI table in tests/support; the CUDA
# kernel runner of `solscope check` driven by the fake CUDA driver table.
if(TARGET solscope_nvidia_cupti)
  solscope_add_test(nvidia_cupti
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/cupti_config_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/cupti_api_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/pm_open_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/pm_sampler_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/cuda_kernel_runner_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/../../support/fake_cupti.cpp
            ${CMAKE_CURRENT_LIST_DIR}/../../support/fake_cuda_launch.cpp
    LIBS solscope_nvidia_cupti solscope::check solscope::check_nvidia)
  # The tests and the fake use the CUPTI parameter structs (the library keeps this include dir private).
  target_include_directories(solscope_nvidia_cupti_test SYSTEM PRIVATE ${SOLSCOPE_CUPTI_INCLUDE_DIR})
endif()
