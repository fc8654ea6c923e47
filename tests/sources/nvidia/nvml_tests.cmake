# Tests of the NVML, GPM, permission pre-flight and NVIDIA source (solscope_nvidia), over a synthetic NVML.
if(TARGET solscope_nvidia)
  solscope_add_test(nvidia
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/nvml_api_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/nvml_reader_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/nvml_processes_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/nvml_gpm_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/profiling_permission_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/nvidia_source_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/nvidia_source_plan_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/nvidia_source_yield_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/nvidia_source_mig_test.cpp
            ${CMAKE_CURRENT_LIST_DIR}/../../support/fake_nvml.cpp
            ${CMAKE_CURRENT_LIST_DIR}/../../support/fake_nvml_mig.cpp
            ${CMAKE_CURRENT_LIST_DIR}/../../support/fake_nvml_processes.cpp
    LIBS solscope::nvidia)
endif()
