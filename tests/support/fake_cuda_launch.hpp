// A scripted fake of the CUDA driver calls of CudaKernelRunner (CudaLaunchApi), as plain functions over one
// global state, following cuda.h (CUDA 13.0): CUDA_ERROR_NOT_INITIALIZED before cuInit, a current context for
// modules, memory, events and launches, the JIT error-log protocol of cuModuleLoadDataEx
// (CU_JIT_ERROR_LOG_BUFFER / CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: capped at the size including the NUL, the
// filled size written back), cuEventElapsedTime's INVALID_HANDLE / NOT_READY rules, and sticky errors: after
// a fault every call of that context returns the fault until cuCtxDestroy (or, as cuda.h warns, of the whole
// process). Synthetic: nothing here is measured on a GPU; times are the script's.
#pragma once

#include <cuda.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "check/nvidia/detail/cuda_launch_api.hpp"

namespace solscope::nvidia::fake_launch {

/// 2025-01-01T00:00:00Z in ns: where the fake host clock starts.
inline constexpr std::int64_t kEpochNs = 1'735'689'600'000'000'000;

struct FakeContext {
  bool alive = true;
  CUresult sticky = CUDA_SUCCESS;  ///< the fault every later call of this context returns
};

struct FakeEvent {
  std::size_t context = 0;
  unsigned int flags = 0;
  bool alive = true;
  bool recorded = false;
  std::int64_t gpu_stamp_ns = 0;
  int pending_queries = 0;     ///< cuEventQuery answers NOT_READY this many more times
  std::uint64_t sequence = 0;  ///< record order on the (in-order) default stream
};

struct FakeModule {
  std::size_t context = 0;
  std::string ptx;
  bool alive = true;
};

struct FakeFunction {
  std::size_t module = 0;
  std::string entry;
};

struct FakeAllocation {
  std::size_t context = 0;
  std::uint64_t bytes = 0;
};

struct FakeLaunchState {
  // Script.
  CUresult init_result = CUDA_SUCCESS;
  std::string bus_id = "0000:17:00.0";  ///< as cuDeviceGetPCIBusId prints it
  int cc_major = 9;
  int cc_minor = 0;
  int sm_count = 132;
  int l2_bytes = 50'331'648;
  std::uint64_t memory_bytes = 80ULL << 30;
  int max_threads_per_block = 1024;             ///< what the kernels' registers allow (CU_FUNC_ATTRIBUTE_...)
  std::int64_t kernel_ns = 1'000'000;           ///< GPU time of one launch
  std::int64_t host_ns_per_launch = 1'000'000;  ///< host time one cuLaunchKernel call takes
  int queries_until_ready = 0;                  ///< NOT_READY answers per recorded event
  std::uint64_t fault_at_launch = 0;            ///< the Nth launch (1-based, whole process) faults; 0 = never
  CUresult fault_result = CUDA_ERROR_ILLEGAL_ADDRESS;
  bool fault_is_process_wide = false;  ///< cuda.h: the process must be relaunched (cuCtxCreate fails too)
  std::uint64_t lost_at_launch = 0;    ///< after the Nth launch every call returns lost_result
  CUresult lost_result = CUDA_ERROR_DEVICE_UNAVAILABLE;
  std::atomic<bool>* stop_flag = nullptr;  ///< set after launch number stop_at_launch
  std::uint64_t stop_at_launch = 0;

  // Driver state.
  bool initialized = false;
  CUresult process_sticky = CUDA_SUCCESS;
  std::size_t current = 0;  ///< 1-based index into contexts; 0 = none
  std::vector<FakeContext> contexts;
  std::vector<FakeModule> modules;
  std::vector<FakeFunction> functions;
  std::vector<FakeEvent> events;
  std::map<CUdeviceptr, FakeAllocation> allocations;
  CUdeviceptr next_address = 0x7f0000000000ULL;
  std::int64_t now_ns = kEpochNs;  ///< the runner's CLOCK_REALTIME (CudaRunnerClock)
  std::int64_t gpu_ns = 0;         ///< the GPU's timeline: end of the last queued launch
  std::uint64_t records = 0;       ///< event records so far (sequence numbers)

  // Observed.
  int calls = 0;  ///< every fake call except the error-string ones
  int contexts_destroyed = 0;
  int module_loads = 0;
  int allocs = 0;
  int frees = 0;
  int event_records = 0;
  int sleeps = 0;
  std::uint64_t launches = 0;
  std::uint32_t jit_log_capacity = 0;  ///< CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES of the last load
  std::uint64_t last_elements = 0;
  std::uint32_t last_iterations = 0;
  unsigned int last_grid = 0;
  unsigned int last_block = 0;

  void reset() { *this = FakeLaunchState{}; }
};

/// The one fake state of the test binary.
[[nodiscard]] auto state() -> FakeLaunchState&;

/// A CudaLaunchApi whose every function is a fake over state(); no library behind it.
[[nodiscard]] auto api() -> CudaLaunchApi;

/// The fake clock for CudaKernelRunner: state().now_ns; a sleep advances it.
[[nodiscard]] auto clock_now_ns() -> std::int64_t;
void clock_sleep_ns(std::int64_t ns);

}  // namespace solscope::nvidia::fake_launch
