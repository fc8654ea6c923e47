// Finds the Hugging Face `config.json` of the model an engine serves: in a local model directory, or in the
// local Hugging Face cache. Never downloads anything.
//
// Cache layout (huggingface_hub's cache, documented at
// huggingface.co/docs/huggingface_hub/guides/manage-cache):
// `<hub>/models--<org>--<name>/refs/<ref>` holds a commit hash and `snapshots/<hash>/config.json` the file (a
// symlink into `blobs/`). The hub directory is $HF_HUB_CACHE, else $HF_HOME/hub, else
// $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub (huggingface_hub's environment-variable
// reference). An engine in a container sees its own filesystem: callers pass `/proc/<pid>/root` as the root
// so that the paths it reports resolve there.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace solscope::workload {

/// Reads an environment variable; nullopt when unset. The app passes one over the process's environment
/// (app/config/environment.hpp); this layer reads none itself.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

/// Hub cache directories named by an environment, in huggingface_hub's order of precedence, without
/// duplicates: HF_HUB_CACHE, HF_HOME/hub, XDG_CACHE_HOME/huggingface/hub, HOME/.cache/huggingface/hub (each
/// only when its variable is set and not empty).
[[nodiscard]] auto hf_hub_dirs(const EnvLookup& env) -> std::vector<std::filesystem::path>;

/// True when `model` reads as a Hugging Face repo id: "name" or "org/name", each part 1-96 characters of
/// [A-Za-z0-9._-], not starting with '.' or '-', without "..".
[[nodiscard]] auto is_hf_repo_id(std::string_view model) -> bool;

/// Where to look for a model's config.json.
struct ConfigSearch {
  std::vector<std::filesystem::path> hub_dirs;  ///< hub cache directories, searched in order
  std::filesystem::path
      fs_root;                ///< prefix for absolute model paths (a process's /proc/<pid>/root); empty = "/"
  std::filesystem::path cwd;  ///< base of relative model paths (a process's /proc/<pid>/cwd); empty = none
};

/// The config.json of `model` (a local directory, a config.json file, or a Hugging Face repo id).
///
/// A path (absolute, or relative to `search.cwd`) is tried first: `<path>/config.json` or the file itself.
/// Then, for a repo id, each hub directory: the snapshot named by `refs/main` when it holds config.json, else
/// the snapshot whose config.json was modified last (ties: the greatest directory name). Hub directories are
/// tried as given and, when `fs_root` is set, also below it. Errors: InvalidArgument for an empty model;
/// NotFound naming the model and every place looked in, with a hint on how to get the file without solscope
/// downloading it.
[[nodiscard]] auto resolve_model_config(std::string_view model, const ConfigSearch& search)
    -> core::Result<std::filesystem::path>;

}  // namespace solscope::workload
