# CUPTI PM sampling: libcupti/libcuda function tables, host-side config, and the PmSampler (included by
# CMakeLists.txt in this folder).
target_sources(solscope_nvidia_cupti PRIVATE
  cupti_api.cpp
  cuda_api.cpp
  pm_config.cpp
  pm_errors.cpp
  pm_session.cpp
  pm_decode.cpp
  pm_sampler.cpp)
