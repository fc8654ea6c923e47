// libsolscope_inject.so: loaded into `solscope run`'s workload by the CUDA driver through
// CUDA_INJECTION64_PATH, which calls InitializeInjection() once per process during cuInit. It enables the
// CUPTI Activity API for kernels (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), devices and NVTX markers
// (CUPTI_ACTIVITY_KIND_MARKER), and streams what CUPTI hands back to the recorder over the pipe named by
// SOLSCOPE_KERNEL_FD (docs/kernel-wire.md). NVTX reaches CUPTI through NVTX_INJECTION64_PATH, which `solscope
// run` points at this library: NVTX calls InitializeInjectionNvtx2() at the process's first NVTX call, and
// it hands NVTX to the libcupti this library opened (docs/kernel-wire.md "NVTX").
//
// Rules: never block the workload (non-blocking writes, bounded buffers, drops counted), never crash it
// (every callback catches everything; failures print one `solscope-inject:` line on stderr and switch the
// library off), flush at exit. This file is the library's only reader of the environment: it is not part of
// solscope's app.
#include <dlfcn.h>
#include <unistd.h>

#include <sys/stat.h>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "inject/detail/activity_parse.hpp"
#include "inject/detail/buffer_pool.hpp"
#include "inject/detail/cupti_activity_api.hpp"
#include "inject/detail/pipe_writer.hpp"

namespace solscope::inject {
namespace {

constexpr std::size_t kBufferBytes = 1U
                                     << 20;    // ~4,700 kernel records (sizeof(CUpti_ActivityKernel10) = 224)
constexpr std::size_t kMaxBuffers = 8;         // at most 8 MiB held by CUPTI and us together
constexpr std::uint32_t kFlushPeriodMs = 250;  // CUPTI hands buffers back at least this often

struct State {
  CuptiActivityApi api;
  BufferPool pool{kBufferBytes, kMaxBuffers};
  std::mutex load_mutex;  // guards api.load(): cuInit and the first NVTX call may race
  std::mutex mutex;       // guards writer, names and markers
  std::optional<PipeWriter> writer;
  NameCache names;
  MarkerPairs markers;
  std::atomic<bool> active{false};
  std::atomic<bool> warned{false};
};

// Leaked on purpose: CUPTI's worker thread may call back during exit, after static destructors would have
// run.
auto state() -> State& {
  static auto* s = new State;
  return *s;
}

void warn(const std::string& what) noexcept {
  if (!state().warned.exchange(true)) {
    std::fprintf(stderr, "solscope-inject: %s; kernel records are not collected for pid %d\n", what.c_str(),
                 static_cast<int>(::getpid()));
  }
}

auto read_clock(const CuptiActivityApi& api) -> std::optional<Clock> {
  std::uint64_t cupti_ns = 0;
  timespec now{};
  if (api.get_timestamp(&cupti_ns) != CUPTI_SUCCESS || ::clock_gettime(CLOCK_REALTIME, &now) != 0) {
    return std::nullopt;
  }
  return Clock{cupti_ns, static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000LL + now.tv_nsec};
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) noexcept {
  *buffer = state().active ? state().pool.acquire() : nullptr;  // null: CUPTI drops and counts
  *size = *buffer != nullptr ? state().pool.buffer_bytes() : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext /*context*/, std::uint32_t /*stream*/, std::uint8_t* buffer,
                               std::size_t /*size*/, std::size_t valid_bytes) noexcept {
  State& s = state();
  try {
    if (s.active) {
      std::size_t cupti_dropped = 0;
      if (s.api.get_num_dropped != nullptr &&
          s.api.get_num_dropped(nullptr, 0, &cupti_dropped) != CUPTI_SUCCESS) {
        cupti_dropped = 0;
      }
      const std::lock_guard lock(s.mutex);
      if (s.writer) {
        if (auto clock = read_clock(s.api)) {
          s.writer->on_record(*clock);
        }
        s.writer->add_cupti_dropped(cupti_dropped);
        (void)parse_activity_buffer(buffer, valid_bytes, s.api.get_next_record, s.names, *s.writer,
                                    &s.markers);
        s.writer->flush();
        if (s.writer->stats().broken) {
          s.active = false;
          warn(std::string("the kernel pipe to solscope closed (") + std::strerror(s.writer->broken_errno()) +
               ")");
        }
      }
    }
  } catch (...) {
    s.active = false;
    warn("out of memory while reading kernel records");
  }
  s.pool.release(buffer);
}

void flush_at_exit() noexcept {
  State& s = state();
  if (!s.active) {
    return;
  }
  (void)s.api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // delivers the rest through buffer_completed
  try {
    const std::lock_guard lock(s.mutex);
    if (s.writer) {
      s.writer->flush();
    }
    if (s.markers.dropped() > 0) {
      std::fprintf(stderr,
                   "solscope-inject: %llu NVTX ranges of pid %d were not recorded (more than %zu open)\n",
                   static_cast<unsigned long long>(s.markers.dropped()), static_cast<int>(::getpid()),
                   kMaxOpenMarkers);
    }
  } catch (...) {  // a lock failure at exit: nothing left to do
  }
}

// The pipe's fd from SOLSCOPE_KERNEL_FD, or a reason why there is none.
auto kernel_fd(std::string& why) -> int {
  const char* text = std::getenv(kKernelFdEnv);
  if (text == nullptr || *text == '\0') {
    why = std::string(kKernelFdEnv) + " is not set (run the workload through `solscope run`)";
    return -1;
  }
  int fd = -1;
  const std::string_view view(text);
  const auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), fd);
  struct stat st {};
  if (ec != std::errc{} || end != view.data() + view.size() || fd < 0 || ::fstat(fd, &st) != 0 ||
      !S_ISFIFO(st.st_mode)) {
    why = std::string(kKernelFdEnv) + "=" + std::string(view) + " is not an open pipe";
    return -1;
  }
  return fd;
}

auto cuda_driver_version() -> std::int32_t {
  void* cuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (cuda == nullptr) {
    return 0;
  }
  using Fn = int (*)(int*);
  auto fn = reinterpret_cast<Fn>(::dlsym(cuda, "cuDriverGetVersion"));
  int version = 0;
  if (fn == nullptr || fn(&version) != 0) {
    version = 0;
  }
  ::dlclose(cuda);  // drops only the reference NOLOAD took
  return version;
}

/// Opens libcupti once per process, by the one resolution of CuptiActivityApi::load (SOLSCOPE_INJECT_CUPTI,
/// else one already loaded, else by soname); every later call keeps it. "" on success, else the reason.
auto load_cupti() -> std::string {
  State& s = state();
  const std::lock_guard lock(s.load_mutex);
  const char* cupti_path = std::getenv(kCuptiLibraryEnv);
  return s.api.load(cupti_path != nullptr ? cupti_path : "");
}

auto start() -> std::string {
  State& s = state();
  std::string why;
  const int fd = kernel_fd(why);
  if (fd < 0) {
    return why;
  }
  why = load_cupti();
  if (!why.empty()) {
    return why;
  }
  Hello hello;
  hello.cuda_driver_version = cuda_driver_version();
  if (s.api.get_version != nullptr) {
    (void)s.api.get_version(&hello.cupti_api_version);
  }
  {
    const std::lock_guard lock(s.mutex);
    s.writer.emplace(fd, static_cast<std::int32_t>(::getpid()));
    s.writer->on_record(hello);
    if (auto clock = read_clock(s.api)) {
      s.writer->on_record(*clock);
    }
    s.writer->flush();
  }
  CUptiResult rc = s.api.register_callbacks(buffer_requested, buffer_completed);
  if (rc != CUPTI_SUCCESS) {
    return "cuptiActivityRegisterCallbacks failed: " + s.api.describe(rc);
  }
  s.active = true;
  (void)s.api.enable(
      CUPTI_ACTIVITY_KIND_DEVICE);  // optional: without it kernels still come, unmapped to UUIDs
  (void)s.api.enable(CUPTI_ACTIVITY_KIND_MARKER);  // optional: NVTX ranges and marks, when NVTX reaches CUPTI
  rc = s.api.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (rc != CUPTI_SUCCESS) {
    s.active = false;
    const bool taken =
        rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED || rc == CUPTI_ERROR_NOT_COMPATIBLE;
    return "cuptiActivityEnable(CONCURRENT_KERNEL) failed: " + s.api.describe(rc) +
           (taken ? " (another profiler holds CUPTI in this process: Nsight Systems, a framework profiler)"
                  : "");
  }
  if (s.api.flush_period != nullptr) {
    (void)s.api.flush_period(kFlushPeriodMs);
  }
  std::atexit(flush_at_exit);
  return {};
}

/// InitializeInjectionNvtx2's work: 1 when libcupti took NVTX, else 0 (NVTX then makes its calls no-ops).
auto start_nvtx(NvtxGetExportTable get_export_table) -> int {
  std::string why;
  if (kernel_fd(why) >= 0) {
    why = load_cupti();
    if (why.empty() && state().api.initialize_nvtx2 == nullptr) {
      why = "libcupti has no NVTX entry point (InitializeInjectionNvtx2)";
    }
  }
  if (!why.empty()) {
    std::fprintf(stderr, "solscope-inject: %s; NVTX ranges are not collected for pid %d\n", why.c_str(),
                 static_cast<int>(::getpid()));
    return 0;
  }
  return state().api.initialize_nvtx2(get_export_table);
}

}  // namespace
}  // namespace solscope::inject

/// The NVTX_INJECTION64_PATH entry point (NVTX's nvtxInit.h: NVTX dlopens the library that variable names at
/// the process's first NVTX call and calls this): hands NVTX on to the libcupti that InitializeInjection
/// uses, CUPTI's documented NVTX route ["set NVTX_INJECTION64_PATH to the CUPTI shared library", CUPTI Python
/// "Getting Started", NVTX Configuration]. Returns libcupti's answer, 0 when it cannot (NVTX stays off).
extern "C" __attribute__((visibility("default"))) auto InitializeInjectionNvtx2(
    solscope::inject::NvtxGetExportTable get_export_table) -> int {
  try {
    return solscope::inject::start_nvtx(get_export_table);
  } catch (...) {
    return 0;
  }
}

/// The CUDA_INJECTION64_PATH entry point: the driver calls it once per process while it initialises. Always
/// returns 1 (success): a failure switches kernel collection off for this process, never the workload.
extern "C" __attribute__((visibility("default"))) auto InitializeInjection() -> int {
  try {
    const std::string why = solscope::inject::start();
    if (!why.empty()) {
      solscope::inject::warn(why);
    }
  } catch (...) {
    solscope::inject::warn("initialisation failed (out of memory)");
  }
  return 1;
}
