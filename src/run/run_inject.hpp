// `solscope run`: where the injection library (libsolscope_inject.so, CUPTI Activity API) is and how CMD is
// told to load it and where to write.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace solscope::app {

/// The variable NVTX reads for its injection library (NVTX's nvtxInit.h).
inline constexpr const char* kNvtxInjectionEnv = "NVTX_INJECTION64_PATH";

/// What the run's meta `nvtx` (kMetaRunNvtx) says about the NVTX route: "injection" when CMD's NVTX goes to
/// the injection library (and the trace's markers table is fed), "user NVTX_INJECTION64_PATH=<value>" when
/// the user's own value was kept (no NVTX ranges are recorded then).
[[nodiscard]] auto nvtx_route(const std::optional<std::string>& user_nvtx) -> std::string;

/// The injection library (inject::kInjectLibraryName) beside the solscope binary (a build tree), or in
/// inject::kInjectInstallDir relative to it (an install); nullopt when neither exists. The one place where
/// `run` looks for it.
[[nodiscard]] auto find_injection_library() -> std::optional<std::filesystem::path>;

/// The pipe between CMD's processes and the kernel log: both ends close-on-exec (ChildSpec::inherit_fd
/// clears it for the write end in CMD only).
struct KernelPipe {
  int read_fd = -1;
  int write_fd = -1;
  std::filesystem::path library;
  /// CUDA_INJECTION64_PATH and SOLSCOPE_KERNEL_FD (inject::kKernelFdEnv) for CMD's environment, and
  /// NVTX_INJECTION64_PATH (kNvtxInjectionEnv) = the library, whose InitializeInjectionNvtx2 hands NVTX to
  /// the libcupti it opened (docs/kernel-wire.md "NVTX"), unless `user_nvtx` (the user's own value of that
  /// variable, empty included) is set: theirs is kept.
  [[nodiscard]] auto environment(const std::optional<std::string>& user_nvtx) const
      -> std::vector<std::pair<std::string, std::string>>;
};

/// Creates the pipe for `library`, its read end non-blocking. Errors: Unavailable with errno's words.
[[nodiscard]] auto open_kernel_pipe(const std::filesystem::path& library) -> core::Result<KernelPipe>;

}  // namespace solscope::app
