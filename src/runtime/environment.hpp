// This process's environment, read only in the rooms the room table marks for it
// (docs/design/architecture.md): the others get every value they need passed in.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/process_refresh.hpp"
#include "runtime/sampling_options.hpp"
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

/// The variable that names the kubelet's PodResources socket; kKubeletOff switches the kubelet off.
inline constexpr std::string_view kKubeletSocketEnv = "SOLSCOPE_KUBELET_SOCKET";
inline constexpr std::string_view kKubeletOff = "off";
/// The variable that, set to "0", stops every read of /proc/PID/environ (the Slurm job then comes from job
/// mapping files only).
inline constexpr std::string_view kReadEnvironEnv = "SOLSCOPE_READ_ENVIRON";

/// The process and workload refresh's settings (process_refresh.hpp) from the options and `env`:
/// `workloads.job_mapping_dir` (none when empty); SOLSCOPE_KUBELET_SOCKET, a socket path, "off" (the kubelet
/// is not asked), or unset or empty (the kubelet's default socket, workload::kKubeletPodResourcesSocket);
/// SOLSCOPE_READ_ENVIRON=0 (environ never read; any other value or unset: read). The period, /proc and the
/// change callback keep their defaults.
[[nodiscard]] auto workload_refresh_options(const WorkloadOptions& workloads, const EnvLookup& env)
    -> WorkloadRefreshOptions;

/// The directory for temporary files: $TMPDIR when set and not empty, else /tmp.
[[nodiscard]] auto temporary_directory() -> std::string;

}  // namespace solscope::app::config
