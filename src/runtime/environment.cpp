#include "runtime/environment.hpp"

#include <unistd.h>

#include <cstdlib>

namespace solscope::app::config {

auto process_environment() -> EnvLookup {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());  // NOLINT(concurrency-mt-unsafe): read-only
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

auto env_or_empty(std::string_view name) -> std::string {
  return process_environment()(name).value_or("");
}

auto cupti_search_from_environment() -> sources::LibrarySearch {
  return sources::LibrarySearch{.override_dir = env_or_empty("SOLSCOPE_CUPTI_DIR"),
                                .toolkit_home = env_or_empty("CUDA_HOME"),
                                .home = env_or_empty("HOME"),
                                .virtual_env = env_or_empty("VIRTUAL_ENV")};
}

auto environment_with(const std::vector<std::pair<std::string, std::string>>& overrides)
    -> std::vector<std::string> {
  std::vector<std::string> out;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view key = text.substr(0, text.find('='));
    bool replaced = false;
    for (const auto& [name, value] : overrides) replaced = replaced || name == key;
    if (!replaced) out.emplace_back(text);
  }
  for (const auto& [name, value] : overrides) out.push_back(name + "=" + value);
  return out;
}

auto workload_refresh_options(const WorkloadOptions& workloads, const EnvLookup& env)
    -> WorkloadRefreshOptions {
  WorkloadRefreshOptions options;
  if (!workloads.job_mapping_dir.empty()) options.job_mapping_dir = workloads.job_mapping_dir;
  if (const auto socket = env(kKubeletSocketEnv); socket && !socket->empty())
    options.kubelet_socket = *socket == kKubeletOff ? std::string() : *socket;
  if (const auto environ_switch = env(kReadEnvironEnv)) options.read_environ = *environ_switch != "0";
  return options;
}

auto temporary_directory() -> std::string {
  const std::string dir = env_or_empty("TMPDIR");
  return dir.empty() ? std::string("/tmp") : dir;
}

auto config_dir(const EnvLookup& env) -> std::filesystem::path {
  auto non_empty = [&env](std::string_view name) -> std::optional<std::string> {
    auto v = env(name);
    return v && !v->empty() ? v : std::nullopt;
  };
  if (auto xdg = non_empty("XDG_CONFIG_HOME")) return std::filesystem::path(*xdg) / "solscope";
  if (auto home = non_empty("HOME")) return std::filesystem::path(*home) / ".config" / "solscope";
  return {};
}

}  // namespace solscope::app::config
