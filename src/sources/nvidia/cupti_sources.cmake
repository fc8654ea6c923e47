# CUPTI PM sampling: libcupti/libcuda function tables, host-side config, and the PmSampler (included by
# CMakeLists.txt in this folder).
target_sources(solscope_nvidia_cupti PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/cupti_api.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_api.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pm_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pm_errors.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pm_session.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pm_decode.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pm_sampler.cpp)
