#include "sources/nvidia/dynamic_library.hpp"

#include <dlfcn.h>

namespace solscope::nvidia {

auto DynamicLibrary::operator=(DynamicLibrary&& other) noexcept -> DynamicLibrary& {
  if (this != &other) {
    if (handle_ != nullptr) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

DynamicLibrary::~DynamicLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

auto DynamicLibrary::open_first(std::span<const std::string> candidates, std::string_view hint, bool global)
    -> core::Result<DynamicLibrary> {
  std::string tried;
  // RTLD_NODELETE: the library stays mapped after dlclose. NVIDIA's libraries start threads of their own
  // (CUPTI's PM-sampling and activity threads, the driver's), which would otherwise run on in unmapped code:
  // on an H100 each teardown of a CUPTI session (`solscope run` at its end, `check` between sources) died
  // of SIGSEGV in a thread solscope did not start.
  const int flags = RTLD_NOW | RTLD_NODELETE | (global ? RTLD_GLOBAL : RTLD_LOCAL);
  for (const auto& candidate : candidates) {
    dlerror();
    if (void* handle = dlopen(candidate.c_str(), flags)) {
      DynamicLibrary lib;
      lib.handle_ = handle;
      lib.path_ = candidate;
      return lib;
    }
    const char* why = dlerror();
    if (!tried.empty()) tried += "; ";
    tried += why != nullptr ? why : candidate + ": cannot open";
  }
  return core::fail(core::ErrorCode::NotFound,
                    "cannot load " + (candidates.empty() ? std::string("library") : candidates.front()) +
                        " (" + tried + ")",
                    std::string(hint));
}

auto DynamicLibrary::symbol(const char* name) const -> void* {
  return handle_ != nullptr ? dlsym(handle_, name) : nullptr;
}

}  // namespace solscope::nvidia
