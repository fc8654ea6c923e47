#include "app/config/environment.hpp"

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

}  // namespace solscope::app::config
