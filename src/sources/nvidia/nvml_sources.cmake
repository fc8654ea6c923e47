# solscope_nvidia: NVML (classic figures and GPM), the profiling-permission pre-flight and the per-device NVIDIA
# CounterSource that composes them with the CUPTI PM sampler (solscope_nvidia_cupti). libnvidia-ml is dlopen'ed.
solscope_add_library(nvidia SOURCES
  gpm_reader.cpp
  mig_devices.cpp
  nvidia_source_mig.cpp
  nvidia_source.cpp
  nvidia_source_plan.cpp
  nvidia_source_probe.cpp
  nvidia_source_yield.cpp
  nvml_api.cpp
  nvml_processes.cpp
  nvml_reader.cpp
  profiling_permission.cpp
  PUBLIC solscope::sources solscope_nvidia_cupti)
