// Resolves the CUPTI Activity API from libcupti at run time (see cupti_activity_api.hpp).
#include "inject/detail/cupti_activity_api.hpp"

#include <dlfcn.h>

#include <array>

namespace solscope::inject {
namespace {

constexpr std::array<const char*, 3> kSonames{"libcupti.so.13", "libcupti.so.12", "libcupti.so"};

auto open_cupti(const std::string& explicit_path, std::string& tried) -> void* {
  if (!explicit_path.empty()) {
    void* handle = ::dlopen(explicit_path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = ::dlerror();
      tried = explicit_path + ": " + (why != nullptr ? why : "cannot be opened");
    }
    return handle;
  }
  for (const char* soname : kSonames) {  // one the workload already loaded (e.g. PyTorch's wheel) comes first
    if (void* handle = ::dlopen(soname, RTLD_NOW | RTLD_NOLOAD)) {
      return handle;
    }
  }
  for (const char* soname : kSonames) {
    if (void* handle = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL)) {
      return handle;
    }
    tried += std::string(tried.empty() ? "" : ", ") + soname;
  }
  tried = "none of " + tried + " could be opened";
  return nullptr;
}

template <class Fn>
void resolve(void* handle, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(::dlsym(handle, name));
}

}  // namespace

auto CuptiActivityApi::load(const std::string& explicit_path) -> std::string {
  if (handle != nullptr) {
    return {};
  }
  std::string tried;
  void* opened = open_cupti(explicit_path, tried);
  if (opened == nullptr) {
    return "libcupti not found (" + tried + ")";
  }
  resolve(opened, "cuptiActivityRegisterCallbacks", register_callbacks);
  resolve(opened, "cuptiActivityEnable", enable);
  resolve(opened, "cuptiActivityFlushAll", flush_all);
  resolve(opened, "cuptiGetTimestamp", get_timestamp);
  resolve(opened, "cuptiActivityGetNextRecord", get_next_record);
  resolve(opened, "cuptiGetResultString", get_result_string);
  resolve(opened, "cuptiActivityGetNumDroppedRecords", get_num_dropped);
  resolve(opened, "cuptiActivityFlushPeriod", flush_period);
  resolve(opened, "cuptiGetVersion", get_version);
  resolve(opened, "InitializeInjectionNvtx2", initialize_nvtx2);
  if (register_callbacks == nullptr || enable == nullptr || flush_all == nullptr ||
      get_timestamp == nullptr || get_next_record == nullptr || get_result_string == nullptr) {
    *this = CuptiActivityApi{};
    return "libcupti lacks the Activity API (cuptiActivityRegisterCallbacks ...): too old";
  }
  handle = opened;
  return {};
}

auto CuptiActivityApi::describe(CUptiResult rc) const -> std::string {
  const char* text = nullptr;
  if (get_result_string != nullptr && get_result_string(rc, &text) == CUPTI_SUCCESS && text != nullptr) {
    return text;
  }
  return "CUPTI error " + std::to_string(static_cast<int>(rc));
}

}  // namespace solscope::inject
