#include "run/run_inject.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "inject/kernel_wire.hpp"
#include "runtime/source_factory.hpp"

namespace solscope::app {

auto find_injection_library() -> std::optional<std::filesystem::path> {
  const std::filesystem::path exe = executable_dir();
  if (exe.empty()) return std::nullopt;
  for (const auto& candidate :
       {exe / inject::kInjectLibraryName, exe / inject::kInjectInstallDir / inject::kInjectLibraryName}) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec))
      return std::filesystem::weakly_canonical(candidate, ec);
  }
  return std::nullopt;
}

auto nvtx_route(const std::optional<std::string>& user_nvtx) -> std::string {
  return user_nvtx ? std::string("user ") + kNvtxInjectionEnv + "=" + *user_nvtx : std::string("injection");
}

auto KernelPipe::environment(const std::optional<std::string>& user_nvtx) const
    -> std::vector<std::pair<std::string, std::string>> {
  std::vector<std::pair<std::string, std::string>> env{{"CUDA_INJECTION64_PATH", library.string()},
                                                       {inject::kKernelFdEnv, std::to_string(write_fd)}};
  if (!user_nvtx) env.emplace_back(kNvtxInjectionEnv, library.string());
  return env;
}

auto open_kernel_pipe(const std::filesystem::path& library) -> core::Result<KernelPipe> {
  std::array<int, 2> fds{};
  if (pipe2(fds.data(), O_CLOEXEC) != 0) {
    return core::fail(core::ErrorCode::Unavailable,
                      std::string("cannot create the kernel log's pipe: ") + std::strerror(errno));
  }
  (void)fcntl(fds[0], F_SETFL, O_NONBLOCK);
  return KernelPipe{fds[0], fds[1], library};
}

}  // namespace solscope::app
