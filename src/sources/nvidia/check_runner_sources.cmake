# The CUDA kernel runner of `solscope check` (check::KernelRunner over dlopen'ed libcuda: cuda_launch_api,
# cuda_kernel_runner, cuda_kernel_launch), added to solscope_nvidia_cupti, which has the toolkit's cuda.h.
target_sources(solscope_nvidia_cupti PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/cuda_launch_api.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_kernel_runner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_kernel_launch.cpp)
