# solscope_nvidia: NVML (classic figures and GPM), the profiling-permission pre-flight and the per-device NVIDIA
# CounterSource that composes them with the CUPTI PM sampler (solscope_nvidia_cupti). libnvidia-ml is dlopen'ed.
add_library(solscope_nvidia STATIC
  ${CMAKE_CURRENT_LIST_DIR}/gpm_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nvidia_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nvidia_source_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nvidia_source_probe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nvml_api.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nvml_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profiling_permission.cpp
)
add_library(solscope::nvidia ALIAS solscope_nvidia)
target_include_directories(solscope_nvidia PUBLIC ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(solscope_nvidia PUBLIC solscope::sources solscope_nvidia_cupti PRIVATE solscope_options)
