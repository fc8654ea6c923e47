// CudaKernelRunner: opening the device, contexts, JIT loading and recovery after a fault (the launch loop is
// in cuda_kernel_launch.cpp).
#include "check/nvidia/cuda_kernel_runner.hpp"

#include <time.h>  // NOLINT(modernize-deprecated-headers): clock_gettime(CLOCK_REALTIME)

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <utility>

#include "check/nvidia/detail/cuda_runner_state.hpp"

namespace solscope::nvidia {
namespace {

constexpr std::size_t kJitLogBytes = 16 * 1024;

auto default_realtime_ns() -> std::int64_t {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

auto uuid_text(const CUuuid& uuid) -> std::string {
  std::string out = "GPU-";
  for (std::size_t i = 0; i < sizeof(uuid.bytes); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    std::array<char, 3> hex{};
    std::snprintf(hex.data(), hex.size(), "%02x",
                  static_cast<unsigned>(static_cast<unsigned char>(uuid.bytes[i])));
    out += hex.data();
  }
  return out;
}

auto driver_failure(const CudaRunnerState& s, std::string_view what, CUresult rc)
    -> core::Unexpected<core::Error> {
  const bool lost = classify_cuda_failure(rc) == CudaFailure::Lost;
  return core::fail(lost ? core::ErrorCode::Unavailable : core::ErrorCode::Internal,
                    s.label + ": " + std::string(what) + " failed: " + error_text(s, rc),
                    lost ? "check the GPU with nvidia-smi; in a container, start it with the NVIDIA runtime "
                           "(--gpus all)"
                         : "");
}

auto read_facts(CudaRunnerState& s) -> core::Result<void> {
  const CudaLaunchApi& api = *s.api;
  int major = 0;
  int minor = 0;
  int sms = 0;
  int l2 = 0;
  const std::array<std::pair<int*, CUdevice_attribute>, 4> attributes{{
      {&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
      {&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
      {&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
      {&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE},
  }};
  for (const auto& [out, attribute] : attributes) {
    if (CUresult rc = api.cu_device_get_attribute(out, attribute, s.device); rc != CUDA_SUCCESS) {
      return driver_failure(s, "cuDeviceGetAttribute(" + std::to_string(static_cast<int>(attribute)) + ")",
                            rc);
    }
  }
  s.facts.compute_capability = major * 10 + minor;
  s.facts.sm_count = static_cast<std::uint32_t>(std::max(sms, 0));
  s.facts.l2_bytes = static_cast<std::uint64_t>(std::max(l2, 0));
  return core::ok();
}

void destroy_context(CudaRunnerState& s) {
  if (s.context != nullptr && !s.hung) (void)s.api->cu_ctx_destroy(s.context);
  s.context = nullptr;
  s.loaded.clear();
  s.buffer_a = s.buffer_b = 0;
  s.buffer_bytes = 0;
  s.timing = {};
  s.markers = {};
  s.marker_recorded = {};
}

auto create_context(CudaRunnerState& s) -> core::Result<void> {
  const CudaLaunchApi& api = *s.api;
  CUcontext context = nullptr;
  // cuCtxCreate_v4: no execution-affinity or CIG parameters (NULL), default scheduling flags.
  if (CUresult rc = api.cu_ctx_create(&context, nullptr, 0, s.device); rc != CUDA_SUCCESS) {
    return driver_failure(s, "cuCtxCreate", rc);
  }
  s.context = context;
  for (std::size_t i = 0; i < 2; ++i) {
    CUresult rc = api.cu_event_create(&s.timing[i], CU_EVENT_DEFAULT);
    if (rc == CUDA_SUCCESS) rc = api.cu_event_create(&s.markers[i], CU_EVENT_DISABLE_TIMING);
    if (rc != CUDA_SUCCESS) return driver_failure(s, "cuEventCreate", rc);
  }
  return core::ok();
}

auto make_current(CudaRunnerState& s) -> core::Result<void> {
  if (CUresult rc = s.api->cu_ctx_set_current(s.context); rc != CUDA_SUCCESS) {
    return driver_failure(s, "cuCtxSetCurrent", rc);
  }
  return core::ok();
}

auto jit_log(const std::array<char, kJitLogBytes>& log, void* filled_value) -> std::string {
  // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES is IN (capacity) and OUT (bytes filled), passed by value in the slot.
  const auto filled = std::min<std::size_t>(reinterpret_cast<std::uintptr_t>(filled_value), log.size());
  std::string text(log.data(), strnlen(log.data(), filled));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\0')) text.pop_back();
  return text;
}

// JIT-loads one kernel. Ok, or the reason the driver gave (with its log); `lost` when the GPU is gone.
auto load_one(CudaRunnerState& s, const check::KernelSpec& spec, bool& lost) -> std::string {
  const CudaLaunchApi& api = *s.api;
  const std::string image(spec.ptx);  // cuModuleLoadDataEx needs NUL-terminated PTX
  std::array<char, kJitLogBytes> log{};
  std::array<CUjit_option, 2> options{CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  std::array<void*, 2> values{log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(log.size()))};
  LoadedKernel kernel{.entry = std::string(spec.entry), .module = nullptr, .function = nullptr};
  const std::string name = "kernel " + std::string(spec.name);
  CUresult rc = api.cu_module_load_data_ex(
      &kernel.module, image.c_str(), static_cast<unsigned>(options.size()), options.data(), values.data());
  if (rc != CUDA_SUCCESS) {
    lost = classify_cuda_failure(rc) == CudaFailure::Lost;
    std::string log_text = jit_log(log, values[1]);
    return name + ": " + error_text(s, rc) + (log_text.empty() ? "" : "; JIT log: " + log_text);
  }
  rc = api.cu_module_get_function(&kernel.function, kernel.module, kernel.entry.c_str());
  if (rc != CUDA_SUCCESS) {
    lost = classify_cuda_failure(rc) == CudaFailure::Lost;
    (void)api.cu_module_unload(kernel.module);
    return name + ": no entry " + kernel.entry + " in its PTX: " + error_text(s, rc);
  }
  s.loaded.push_back(std::move(kernel));
  return {};
}

auto load_modules(CudaRunnerState& s) -> core::Result<void> {
  std::string rejected;
  std::size_t count = 0;
  bool old_ptx_jit = false;
  for (const auto& spec : s.specs) {
    if (spec.entry.empty() || !fits(spec, s.facts)) continue;
    bool lost = false;
    std::string why = load_one(s, spec, lost);
    if (lost) {
      s.unusable = core::Error{core::ErrorCode::Unavailable, s.label + " was lost while loading " + why,
                               "check the GPU with nvidia-smi and the kernel log (dmesg) for an Xid"};
      return core::fail(*s.unusable);
    }
    if (why.empty()) continue;
    old_ptx_jit = old_ptx_jit || why.find("CUDA_ERROR_UNSUPPORTED_PTX_VERSION") != std::string::npos;
    rejected += (rejected.empty() ? "" : "; ") + why;
    ++count;
  }
  if (count == 0) return core::ok();
  return core::fail(core::ErrorCode::InvalidArgument,
                    s.label + " rejected the PTX of " + std::to_string(count) + " kernel(s): " + rejected,
                    old_ptx_jit ? "update the NVIDIA driver: its PTX JIT is older than the kernels' PTX ISA"
                                : "this is a solscope bug: please report it with this message; the other "
                                  "kernels still run");
}

}  // namespace

auto fits(const check::KernelSpec& kernel, const check::DeviceFacts& facts) -> bool {
  return facts.compute_capability >= kernel.min_compute_capability &&
         facts.compute_capability <= kernel.max_compute_capability;
}

auto error_text(const CudaRunnerState& s, CUresult rc) -> std::string {
  return cuda_error_text(*s.api, rc);
}

auto recover_context(CudaRunnerState& s) -> core::Result<void> {
  destroy_context(s);
  auto created = create_context(s);
  if (created) created = load_modules(s);
  if (created) return core::ok();
  s.unusable =
      core::Error{core::ErrorCode::Unavailable,
                  s.label + ": no fresh CUDA context after a kernel fault: " + created.error().message,
                  "the driver keeps the fault for this process: run solscope check again for the "
                  "remaining phases, and see the kernel log (dmesg) for an Xid"};
  destroy_context(s);
  return core::fail(*s.unusable);
}

auto CudaKernelRunner::open(std::shared_ptr<const CudaLaunchApi> api, CudaKernelRunnerOptions options,
                            CudaRunnerClock clock) -> core::Result<std::unique_ptr<CudaKernelRunner>> {
  auto s = std::make_unique<CudaRunnerState>();
  s->api = std::move(api);
  s->options = std::move(options);
  s->clock = std::move(clock);
  if (!s->clock.realtime_ns) s->clock.realtime_ns = default_realtime_ns;
  if (!s->clock.sleep_ns) {
    s->clock.sleep_ns = [](std::int64_t ns) { std::this_thread::sleep_for(std::chrono::nanoseconds(ns)); };
  }
  s->label = "GPU " + std::to_string(s->options.nvml_index);
  s->facts.nvml_index = s->options.nvml_index;
  s->facts.chip = s->options.chip;
  const CudaLaunchApi& cuda = *s->api;
  if (CUresult rc = cuda.cu_init(0); rc != CUDA_SUCCESS) {
    return core::fail(
        core::ErrorCode::Unavailable, "the CUDA driver cannot start: " + error_text(*s, rc),
        "check the GPU with nvidia-smi; in a container, start it with the NVIDIA runtime (--gpus "
        "all); CUDA_VISIBLE_DEVICES may hide every GPU");
  }
  auto ordinal = cuda_ordinal_of(cuda, s->options.pci_bus_id);
  if (!ordinal) return core::propagate(std::move(ordinal));
  if (CUresult rc = cuda.cu_device_get(&s->device, *ordinal); rc != CUDA_SUCCESS) {
    return driver_failure(*s, "cuDeviceGet", rc);
  }
  CUuuid uuid{};
  if (cuda.cu_device_get_uuid(&uuid, s->device) == CUDA_SUCCESS) {
    s->label += " (" + uuid_text(uuid) + ")";
  }
  if (auto facts = read_facts(*s); !facts) return core::propagate(std::move(facts));
  if (auto created = create_context(*s); !created) return core::propagate(std::move(created));
  return std::unique_ptr<CudaKernelRunner>(new CudaKernelRunner(std::move(s)));
}

auto open_cuda_kernel_runner(CudaKernelRunnerOptions options)
    -> core::Result<std::unique_ptr<CudaKernelRunner>> {
  auto api = load_cuda_launch();
  if (!api) return core::propagate(std::move(api));
  return CudaKernelRunner::open(std::make_shared<const CudaLaunchApi>(std::move(*api)), std::move(options));
}

CudaKernelRunner::CudaKernelRunner(std::unique_ptr<CudaRunnerState> state) : state_(std::move(state)) {}

CudaKernelRunner::~CudaKernelRunner() {
  destroy_context(*state_);
}

auto CudaKernelRunner::device() const -> const check::DeviceFacts& {
  return state_->facts;
}

auto CudaKernelRunner::load(std::span<const check::KernelSpec> kernels) -> core::Result<void> {
  CudaRunnerState& s = *state_;
  if (s.unusable) return core::fail(*s.unusable);
  if (auto current = make_current(s); !current) return current;
  for (const auto& k : s.loaded) (void)s.api->cu_module_unload(k.module);
  s.loaded.clear();
  s.specs.assign(kernels.begin(), kernels.end());
  return load_modules(s);
}

auto CudaKernelRunner::run(const check::KernelSpec& kernel, const check::LaunchShape& shape,
                           std::int64_t duration_ns, const std::atomic<bool>* stop)
    -> core::Result<check::RunResult> {
  CudaRunnerState& s = *state_;
  if (s.unusable) return core::fail(*s.unusable);
  const auto found = std::find_if(s.loaded.begin(), s.loaded.end(),
                                  [&](const LoadedKernel& k) { return k.entry == kernel.entry; });
  if (found == s.loaded.end()) {
    if (!fits(kernel, s.facts)) {
      return core::fail(core::ErrorCode::FailedPrecondition,
                        "kernel " + std::string(kernel.name) + " needs compute capability " +
                            std::to_string(kernel.min_compute_capability) + " to " +
                            std::to_string(kernel.max_compute_capability) + "; " + s.label + " has " +
                            std::to_string(s.facts.compute_capability));
    }
    return core::fail(core::ErrorCode::FailedPrecondition,
                      "kernel " + std::string(kernel.name) + " is not loaded on " + s.label,
                      "load() it first; a kernel whose PTX the driver rejected cannot run");
  }
  if (shape.grid_blocks == 0 || shape.block_threads == 0) {
    return core::fail(core::ErrorCode::InvalidArgument, "kernel " + std::string(kernel.name) +
                                                            ": empty launch shape (grid " +
                                                            std::to_string(shape.grid_blocks) + " x block " +
                                                            std::to_string(shape.block_threads) + ")");
  }
  if (auto current = make_current(s); !current) return core::propagate(std::move(current));
  return run_phase(s, kernel, found->function, shape, duration_ns, stop);
}

}  // namespace solscope::nvidia
