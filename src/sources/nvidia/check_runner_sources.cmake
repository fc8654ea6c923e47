# The CUDA kernel runner of `solscope check` (check::KernelRunner over dlopen'ed libcuda: cuda_launch_api,
# cuda_kernel_runner, cuda_kernel_launch), added to solscope_nvidia_cupti, which has the toolkit's cuda.h.
target_sources(solscope_nvidia_cupti PRIVATE
  cuda_launch_api.cpp
  cuda_kernel_runner.cpp
  cuda_kernel_launch.cpp)
