// DynamicLibrary: a thin RAII wrapper over dlopen/dlsym/dlclose, so that vendor libraries are loaded at run
// time and the binary starts on machines without them.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "core/result.hpp"

namespace solscope::nvidia {

/// An open shared library. Move-only; closes it on destruction.
class DynamicLibrary {
 public:
  DynamicLibrary() = default;
  DynamicLibrary(DynamicLibrary&& other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)), path_(std::move(other.path_)) {}
  auto operator=(DynamicLibrary&& other) noexcept -> DynamicLibrary&;
  DynamicLibrary(const DynamicLibrary&) = delete;
  auto operator=(const DynamicLibrary&) -> DynamicLibrary& = delete;
  ~DynamicLibrary();

  /// Opens the first of `candidates` that loads (RTLD_NOW | RTLD_NODELETE | RTLD_LOCAL, or RTLD_GLOBAL if
  /// `global`): closing drops the reference but never unmaps the library, whose own threads may still run.
  /// Each candidate is a soname ("libcuda.so.1", searched by the dynamic loader) or a path. NotFound lists
  /// every candidate with dlerror()'s text, and `hint` is passed through to the error.
  [[nodiscard]] static auto open_first(std::span<const std::string> candidates, std::string_view hint,
                                       bool global = false) -> core::Result<DynamicLibrary>;

  /// The address of `name`, or nullptr when the library lacks it.
  [[nodiscard]] auto symbol(const char* name) const -> void*;

  /// Resolves `name` into the function pointer `fn`; false (and `fn` null) when missing.
  template <class Fn>
  auto resolve(Fn& fn, const char* name) const -> bool {
    fn = reinterpret_cast<Fn>(symbol(name));
    return fn != nullptr;
  }

  /// The candidate that was opened.
  [[nodiscard]] auto path() const -> const std::string& { return path_; }
  [[nodiscard]] auto is_open() const -> bool { return handle_ != nullptr; }

 private:
  void* handle_ = nullptr;
  std::string path_;
};

}  // namespace solscope::nvidia
