// This process's environment, read only in the rooms the room table marks for it
// (docs/design/architecture.md): the others get every value they need passed in.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sources/library_search.hpp"
#include "workload/model_config_path.hpp"

namespace solscope::app::config {

/// Reads an environment variable; nullopt when unset (the workload layer's type).
using EnvLookup = workload::EnvLookup;

/// An EnvLookup over this process's environment (std::getenv).
[[nodiscard]] auto process_environment() -> EnvLookup;

/// The variable's value; empty when it is unset.
[[nodiscard]] auto env_or_empty(std::string_view name) -> std::string;

/// Where to look for libcupti: $SOLSCOPE_CUPTI_DIR, $CUDA_HOME, $HOME and $VIRTUAL_ENV (README "Counter
/// sources").
[[nodiscard]] auto cupti_search_from_environment() -> sources::LibrarySearch;

/// This process's environment as "KEY=VALUE" entries, with each `overrides` key set to its value (replaced
/// where present, appended otherwise): the environment `solscope run` gives its command.
[[nodiscard]] auto environment_with(const std::vector<std::pair<std::string, std::string>>& overrides)
    -> std::vector<std::string>;

/// $XDG_CONFIG_HOME/solscope, else $HOME/.config/solscope (XDG Base Directory specification); empty when
/// neither variable is set and non-empty.
[[nodiscard]] auto config_dir(const EnvLookup& env) -> std::filesystem::path;

/// The directory for temporary files: $TMPDIR when set and not empty, else /tmp.
[[nodiscard]] auto temporary_directory() -> std::string;

}  // namespace solscope::app::config
