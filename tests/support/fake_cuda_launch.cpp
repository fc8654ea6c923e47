#include "support/fake_cuda_launch.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

namespace solscope::nvidia::fake_launch {
namespace {

// Handles are 1-based indices into the state's vectors, disguised as the driver's opaque pointers.
template <class Handle>
auto to_handle(std::size_t index_1) -> Handle {
  return reinterpret_cast<Handle>(static_cast<std::uintptr_t>(index_1));
}
template <class Handle>
auto from_handle(Handle handle) -> std::size_t {
  return static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(handle));
}

// The error every call of the current context returns: the process's fault, then the context's.
auto sticky() -> CUresult {
  FakeLaunchState& s = state();
  if (s.process_sticky != CUDA_SUCCESS) return s.process_sticky;
  if (s.current != 0 && s.contexts[s.current - 1].sticky != CUDA_SUCCESS)
    return s.contexts[s.current - 1].sticky;
  return CUDA_SUCCESS;
}

// The common preamble: counted, initialized, no sticky fault, and (when `needs_context`) a current context.
auto enter(bool needs_context) -> CUresult {
  FakeLaunchState& s = state();
  ++s.calls;
  if (!s.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (CUresult rc = sticky(); rc != CUDA_SUCCESS) return rc;
  if (needs_context && (s.current == 0 || !s.contexts[s.current - 1].alive))
    return CUDA_ERROR_INVALID_CONTEXT;
  return CUDA_SUCCESS;
}

auto event_at(CUevent handle) -> FakeEvent* {
  const std::size_t i = from_handle(handle);
  auto& events = state().events;
  if (i == 0 || i > events.size() || !events[i - 1].alive) return nullptr;
  return &events[i - 1];
}

auto cu_init(unsigned int flags) -> CUresult {
  FakeLaunchState& s = state();
  ++s.calls;
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  s.initialized = s.init_result == CUDA_SUCCESS;
  return s.init_result;
}

auto cu_device_get_count(int* count) -> CUresult {
  if (CUresult rc = enter(false); rc != CUDA_SUCCESS) return rc;
  *count = 1;
  return CUDA_SUCCESS;
}

auto cu_device_get(CUdevice* device, int ordinal) -> CUresult {
  if (CUresult rc = enter(false); rc != CUDA_SUCCESS) return rc;
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

auto cu_device_get_pci_bus_id(char* out, int len, CUdevice device) -> CUresult {
  if (CUresult rc = enter(false); rc != CUDA_SUCCESS) return rc;
  if (device != 0 || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  std::strncpy(out, state().bus_id.c_str(), static_cast<std::size_t>(len) - 1);
  out[len - 1] = '\0';
  return CUDA_SUCCESS;
}

auto cu_device_get_attribute(int* value, CUdevice_attribute attribute, CUdevice device) -> CUresult {
  if (CUresult rc = enter(false); rc != CUDA_SUCCESS) return rc;
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  const FakeLaunchState& s = state();
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      *value = s.cc_major;
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      *value = s.cc_minor;
      break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      *value = s.sm_count;
      break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
      *value = s.l2_bytes;
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

auto cu_device_get_uuid(CUuuid* uuid, CUdevice device) -> CUresult {
  if (CUresult rc = enter(false); rc != CUDA_SUCCESS) return rc;
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  for (std::size_t i = 0; i < sizeof(uuid->bytes); ++i) uuid->bytes[i] = static_cast<char>(0x10 + i);
  return CUDA_SUCCESS;
}

// cuGetErrorName/String: a few codes; an unknown one gives CUDA_ERROR_INVALID_VALUE and a null string.
struct Names {
  CUresult code;
  const char* name;
  const char* text;
};
constexpr std::array<Names, 9> kNames{{
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA_ERROR_DEVICE_UNAVAILABLE",
     "CUDA-capable device(s) is/are busy or unavailable"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
}};

auto cu_get_error_name(CUresult code, const char** out) -> CUresult {
  for (const auto& n : kNames) {
    if (n.code == code) {
      *out = n.name;
      return CUDA_SUCCESS;
    }
  }
  *out = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

auto cu_get_error_string(CUresult code, const char** out) -> CUresult {
  for (const auto& n : kNames) {
    if (n.code == code) {
      *out = n.text;
      return CUDA_SUCCESS;
    }
  }
  *out = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

auto cu_ctx_create(CUcontext* out, CUctxCreateParams* params, unsigned int flags, CUdevice device)
    -> CUresult {
  if (CUresult rc = enter(false); rc != CUDA_SUCCESS) return rc;
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;  // the runner asks for the default scheduling
  if (params != nullptr && params->execAffinityParams != nullptr && params->cigParams != nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  FakeLaunchState& s = state();
  s.contexts.push_back(FakeContext{});
  s.current = s.contexts.size();
  *out = to_handle<CUcontext>(s.current);
  return CUDA_SUCCESS;
}

auto cu_ctx_destroy(CUcontext context) -> CUresult {
  FakeLaunchState& s = state();
  ++s.calls;
  if (s.process_sticky != CUDA_SUCCESS) return s.process_sticky;
  const std::size_t i = from_handle(context);
  if (i == 0 || i > s.contexts.size() || !s.contexts[i - 1].alive) return CUDA_ERROR_INVALID_CONTEXT;
  s.contexts[i - 1].alive = false;
  ++s.contexts_destroyed;
  if (s.current == i) s.current = 0;
  for (auto& m : s.modules) m.alive = m.alive && m.context != i;
  for (auto& e : s.events) e.alive = e.alive && e.context != i;
  std::erase_if(s.allocations, [i](const auto& a) { return a.second.context == i; });
  return CUDA_SUCCESS;
}

auto cu_ctx_set_current(CUcontext context) -> CUresult {
  FakeLaunchState& s = state();
  ++s.calls;
  if (!s.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (s.process_sticky != CUDA_SUCCESS) return s.process_sticky;
  const std::size_t i = from_handle(context);
  if (i > s.contexts.size() || (i != 0 && !s.contexts[i - 1].alive)) return CUDA_ERROR_INVALID_CONTEXT;
  s.current = i;
  return CUDA_SUCCESS;
}

auto cu_ctx_synchronize() -> CUresult {
  return enter(true);
}

auto cu_module_load_data_ex(CUmodule* out, const void* image, unsigned int count, CUjit_option* options,
                            void** values) -> CUresult {
  if (CUresult rc = enter(true); rc != CUDA_SUCCESS) return rc;
  FakeLaunchState& s = state();
  ++s.module_loads;
  char* log = nullptr;
  std::size_t capacity = 0;
  std::size_t size_slot = count;
  for (unsigned int i = 0; i < count; ++i) {
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER) log = static_cast<char*>(values[i]);
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) {
      capacity = reinterpret_cast<std::uintptr_t>(values[i]);
      size_slot = i;
    }
  }
  s.jit_log_capacity = static_cast<std::uint32_t>(capacity);
  const std::string ptx(static_cast<const char*>(image));  // must be NUL-terminated
  if (ptx.find(".version") == std::string::npos || ptx.find("FAKE_SYNTAX_ERROR") != std::string::npos) {
    const std::string message =
        "ptxas application ptx input, line 5; error   : syntax error at 'FAKE_SYNTAX_ERROR'";
    if (log != nullptr && capacity > 0) {
      const std::size_t n = std::min(message.size(), capacity - 1);  // capped, including the NUL
      std::memcpy(log, message.data(), n);
      log[n] = '\0';
      values[size_slot] = reinterpret_cast<void*>(static_cast<std::uintptr_t>(n + 1));
    }
    return CUDA_ERROR_INVALID_PTX;
  }
  s.modules.push_back(FakeModule{.context = s.current, .ptx = ptx, .alive = true});
  *out = to_handle<CUmodule>(s.modules.size());
  return CUDA_SUCCESS;
}

auto cu_module_unload(CUmodule module) -> CUresult {
  if (CUresult rc = enter(false); rc != CUDA_SUCCESS) return rc;
  const std::size_t i = from_handle(module);
  auto& modules = state().modules;
  if (i == 0 || i > modules.size() || !modules[i - 1].alive) return CUDA_ERROR_INVALID_HANDLE;
  modules[i - 1].alive = false;
  return CUDA_SUCCESS;
}

auto cu_module_get_function(CUfunction* out, CUmodule module, const char* name) -> CUresult {
  if (CUresult rc = enter(true); rc != CUDA_SUCCESS) return rc;
  FakeLaunchState& s = state();
  const std::size_t i = from_handle(module);
  if (i == 0 || i > s.modules.size() || !s.modules[i - 1].alive) return CUDA_ERROR_INVALID_HANDLE;
  if (s.modules[i - 1].ptx.find(".entry " + std::string(name) + "(") == std::string::npos) {
    return CUDA_ERROR_NOT_FOUND;
  }
  s.functions.push_back(FakeFunction{.module = i, .entry = name});
  *out = to_handle<CUfunction>(s.functions.size());
  return CUDA_SUCCESS;
}

auto function_at(CUfunction f) -> const FakeFunction* {
  const FakeLaunchState& s = state();
  const std::size_t i = from_handle(f);
  if (i == 0 || i > s.functions.size()) return nullptr;
  const FakeFunction& fn = s.functions[i - 1];
  if (!s.modules[fn.module - 1].alive || s.modules[fn.module - 1].context != s.current) return nullptr;
  return &fn;
}

auto cu_func_get_attribute(int* value, CUfunction_attribute attribute, CUfunction f) -> CUresult {
  if (CUresult rc = enter(true); rc != CUDA_SUCCESS) return rc;
  if (function_at(f) == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (attribute != CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) return CUDA_ERROR_INVALID_VALUE;
  *value = state().max_threads_per_block;
  return CUDA_SUCCESS;
}

auto cu_mem_alloc(CUdeviceptr* out, std::size_t bytes) -> CUresult {
  if (CUresult rc = enter(true); rc != CUDA_SUCCESS) return rc;
  FakeLaunchState& s = state();
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  std::uint64_t used = 0;
  for (const auto& [address, a] : s.allocations) used += a.bytes;
  if (used + bytes > s.memory_bytes) return CUDA_ERROR_OUT_OF_MEMORY;
  ++s.allocs;
  *out = s.next_address;
  s.allocations[*out] = FakeAllocation{.context = s.current, .bytes = bytes};
  s.next_address += (bytes + 0xFFFF) & ~CUdeviceptr{0xFFFF};
  return CUDA_SUCCESS;
}

auto cu_mem_free(CUdeviceptr address) -> CUresult {
  if (CUresult rc = enter(true); rc != CUDA_SUCCESS) return rc;
  FakeLaunchState& s = state();
  if (s.allocations.erase(address) == 0) return CUDA_ERROR_INVALID_VALUE;
  ++s.frees;
  return CUDA_SUCCESS;
}

// Whether [address, address + bytes) lies in one allocation of the current context.
auto valid_range(CUdeviceptr address, std::uint64_t bytes) -> bool {
  const FakeLaunchState& s = state();
  auto it = s.allocations.find(address);
  return it != s.allocations.end() && it->second.context == s.current && it->second.bytes >= bytes;
}

auto cu_launch_kernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                      unsigned int by, unsigned int bz, unsigned int shared_bytes, CUstream stream,
                      void** params, void** extra) -> CUresult {
  if (CUresult rc = enter(true); rc != CUDA_SUCCESS) return rc;
  FakeLaunchState& s = state();
  if (function_at(f) == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (gx == 0 || gy == 0 || gz == 0 || bx * by * bz == 0 || bx * by * bz > 1024)
    return CUDA_ERROR_INVALID_VALUE;
  if (stream != nullptr || shared_bytes != 0 || extra != nullptr || params == nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  if (bx * by * bz > static_cast<unsigned>(s.max_threads_per_block))
    return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  // The parameter list every check kernel has: (u64 buffer_a, u64 buffer_b, u64 elements, u32 iterations).
  const auto a = *static_cast<const CUdeviceptr*>(params[0]);
  const auto b = *static_cast<const CUdeviceptr*>(params[1]);
  s.last_elements = *static_cast<const std::uint64_t*>(params[2]);
  s.last_iterations = *static_cast<const std::uint32_t*>(params[3]);
  s.last_grid = gx;
  s.last_block = bx;
  ++s.launches;
  s.now_ns += s.host_ns_per_launch;
  s.gpu_ns += s.kernel_ns;
  const std::uint64_t bytes = s.last_elements * 8;
  const bool out_of_bounds = bytes > 0 && (!valid_range(a, bytes) || !valid_range(b, bytes));
  if (out_of_bounds || s.launches == s.fault_at_launch) {  // asynchronous: a later call reports it
    const CUresult fault = out_of_bounds ? CUDA_ERROR_ILLEGAL_ADDRESS : s.fault_result;
    s.contexts[s.current - 1].sticky = fault;
    if (s.fault_is_process_wide) s.process_sticky = fault;
  }
  if (s.launches == s.lost_at_launch) s.process_sticky = s.lost_result;
  if (s.stop_flag != nullptr && s.launches == s.stop_at_launch) s.stop_flag->store(true);
  return CUDA_SUCCESS;
}

auto cu_event_create(CUevent* out, unsigned int flags) -> CUresult {
  if (CUresult rc = enter(true); rc != CUDA_SUCCESS) return rc;
  FakeLaunchState& s = state();
  s.events.push_back(FakeEvent{.context = s.current, .flags = flags});
  *out = to_handle<CUevent>(s.events.size());
  return CUDA_SUCCESS;
}

auto cu_event_record(CUevent event, CUstream stream) -> CUresult {
  if (CUresult rc = enter(true); rc != CUDA_SUCCESS) return rc;
  FakeLaunchState& s = state();
  FakeEvent* e = event_at(event);
  if (e == nullptr || e->context != s.current || stream != nullptr) return CUDA_ERROR_INVALID_HANDLE;
  ++s.event_records;
  e->recorded = true;
  e->gpu_stamp_ns = s.gpu_ns;
  e->pending_queries = s.queries_until_ready;
  e->sequence = ++s.records;
  return CUDA_SUCCESS;
}

// The default stream is in order: when an event completes, every event recorded before it has completed.
void complete_through(std::uint64_t sequence) {
  for (auto& e : state().events) {
    if (e.recorded && e.sequence <= sequence) e.pending_queries = 0;
  }
}

auto cu_event_query(CUevent event) -> CUresult {
  if (CUresult rc = enter(true); rc != CUDA_SUCCESS) return rc;
  FakeEvent* e = event_at(event);
  if (e == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (e->pending_queries > 0) {
    --e->pending_queries;
    return CUDA_ERROR_NOT_READY;
  }
  complete_through(e->sequence);
  return CUDA_SUCCESS;
}

auto cu_event_synchronize(CUevent event) -> CUresult {
  if (CUresult rc = enter(true); rc != CUDA_SUCCESS) return rc;
  FakeEvent* e = event_at(event);
  if (e == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  complete_through(e->sequence);
  return CUDA_SUCCESS;
}

auto cu_event_elapsed_time(float* ms, CUevent start, CUevent end) -> CUresult {
  if (CUresult rc = enter(true); rc != CUDA_SUCCESS) return rc;
  const FakeEvent* a = event_at(start);
  const FakeEvent* b = event_at(end);
  if (a == nullptr || b == nullptr || !a->recorded || !b->recorded) return CUDA_ERROR_INVALID_HANDLE;
  if (((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING) != 0) return CUDA_ERROR_INVALID_HANDLE;
  if (a->pending_queries > 0 || b->pending_queries > 0) return CUDA_ERROR_NOT_READY;
  *ms = static_cast<float>(static_cast<double>(b->gpu_stamp_ns - a->gpu_stamp_ns) / 1e6);
  return CUDA_SUCCESS;
}

auto cu_event_destroy(CUevent event) -> CUresult {
  if (CUresult rc = enter(false); rc != CUDA_SUCCESS) return rc;
  FakeEvent* e = event_at(event);
  if (e == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  e->alive = false;
  return CUDA_SUCCESS;
}

}  // namespace

auto state() -> FakeLaunchState& {
  static FakeLaunchState instance;
  return instance;
}

auto api() -> CudaLaunchApi {
  CudaLaunchApi api;
  api.cu_init = cu_init;
  api.cu_device_get_count = cu_device_get_count;
  api.cu_device_get = cu_device_get;
  api.cu_device_get_pci_bus_id = cu_device_get_pci_bus_id;
  api.cu_device_get_attribute = cu_device_get_attribute;
  api.cu_get_error_string = cu_get_error_string;
  api.cu_get_error_name = cu_get_error_name;
  api.cu_device_get_uuid = cu_device_get_uuid;
  api.cu_ctx_create = cu_ctx_create;
  api.cu_ctx_destroy = cu_ctx_destroy;
  api.cu_ctx_set_current = cu_ctx_set_current;
  api.cu_ctx_synchronize = cu_ctx_synchronize;
  api.cu_module_load_data_ex = cu_module_load_data_ex;
  api.cu_module_unload = cu_module_unload;
  api.cu_module_get_function = cu_module_get_function;
  api.cu_func_get_attribute = cu_func_get_attribute;
  api.cu_mem_alloc = cu_mem_alloc;
  api.cu_mem_free = cu_mem_free;
  api.cu_launch_kernel = cu_launch_kernel;
  api.cu_event_create = cu_event_create;
  api.cu_event_record = cu_event_record;
  api.cu_event_query = cu_event_query;
  api.cu_event_synchronize = cu_event_synchronize;
  api.cu_event_elapsed_time = cu_event_elapsed_time;
  api.cu_event_destroy = cu_event_destroy;
  return api;
}

auto clock_now_ns() -> std::int64_t {
  return state().now_ns;
}

void clock_sleep_ns(std::int64_t ns) {
  ++state().sleeps;
  state().now_ns += ns;
}

}  // namespace solscope::nvidia::fake_launch
