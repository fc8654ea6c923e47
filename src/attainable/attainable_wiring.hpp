// The commands' side of the attainable SOL: where `[[workload]]` declarations come from, the AttainableSol of
// a live NVIDIA source, and an engine run with its annotator.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "attainable/attainable_sol.hpp"
#include "core/device_info.hpp"
#include "core/result.hpp"
#include "runtime/engine.hpp"
#include "runtime/engine_loop.hpp"
#include "runtime/pm_yield_driver.hpp"
#include "runtime/sampling_options.hpp"
#include "runtime/source_factory.hpp"
#include "workload/declaration.hpp"
#include "workload/model_config_path.hpp"

namespace solscope::app {

/// Name of the declarations file under the configuration directory: <config>/solscope/workloads.toml.
inline constexpr const char* kWorkloadsFileName = "workloads.toml";

/// The declarations file to read: `options.file` when set (--workloads or SOLSCOPE_WORKLOADS); else
/// $XDG_CONFIG_HOME/solscope/workloads.toml ($HOME/.config when XDG_CONFIG_HOME is unset or empty, per the
/// XDG Base Directory specification) when that file exists; else empty (no declarations).
[[nodiscard]] auto workloads_file_path(const WorkloadOptions& options, const workload::EnvLookup& env)
    -> std::string;

/// Reads and parses the declarations of workloads_file_path(). None when the options disable discovery or no
/// file applies. Errors: InvalidArgument "cannot read workload declarations FILE: why" for a given file that
/// cannot be read, and parse_workload_declarations' "FILE:LINE: what is wrong" (both mean exit code 2).
[[nodiscard]] auto load_workload_declarations(const WorkloadOptions& options, const workload::EnvLookup& env)
    -> core::Result<std::vector<workload::WorkloadDeclaration>>;

/// What a sampling command will do about attainable SOL: `wanted` is false with --replay or --no-workloads.
struct AttainablePlan {
  bool wanted = false;
  std::vector<workload::WorkloadDeclaration> declared;
};

/// Plans attainable SOL for a sampling command (loads the declarations when wanted). Errors: those of
/// load_workload_declarations (exit code 2).
[[nodiscard]] auto plan_attainable(const CommonOptions& common, const WorkloadOptions& workloads)
    -> core::Result<AttainablePlan>;

/// What a sampling command resolves from its options before it opens anything: the source's configuration
/// (source_config_from) and the attainable-SOL plan (plan_attainable).
struct SamplingPlan {
  sources::SourceConfig config;
  AttainablePlan attainable;
};

/// source_config_from() then plan_attainable(): the first error of the two (exit code 2).
[[nodiscard]] auto plan_sampling(const CommonOptions& common, const WorkloadOptions& workloads)
    -> core::Result<SamplingPlan>;

/// The AttainableSol of a plan once the source is open: null unless wanted and the source is live GPUs.
[[nodiscard]] auto attainable_for(AttainablePlan plan, const OpenedSource& opened)
    -> std::unique_ptr<AttainableSol>;

/// The AttainableSol of a live NVIDIA source's `devices` (not started): PIDs from NVML (its own session,
/// make_nvml_pid_lister()), the loopback HTTP client, /proc, this process's Hugging Face hub directories.
[[nodiscard]] auto make_live_attainable(std::vector<core::DeviceInfo> devices,
                                        std::vector<workload::WorkloadDeclaration> declared)
    -> std::unique_ptr<AttainableSol>;

/// The text `solscope devices --workloads` prints after the device list: a "Workloads" heading, then per GPU
/// workload::format_workloads()' block followed by a "  ceiling: ..." line (AttainableFigures::ceiling_note)
/// when there is one. Ends with a newline.
[[nodiscard]] auto format_devices_workloads(const AttainableSnapshot& snapshot) -> std::string;

/// run_engine() (engine_loop.hpp) with `attainable` (may be null: no annotation) started before the run, its
/// annotator on every sample, and stopped after, and with `pm_yield` and `companion` (run_engine's). Returns
/// the exit code as run_engine() does.
[[nodiscard]] auto run_engine_with_attainable(sources::CounterSource& source, std::vector<SampleSink*> sinks,
                                              const EngineOptions& options, AttainableSol* attainable,
                                              std::ostream& err, PmYieldSetup pm_yield = {},
                                              const EngineCompanion& companion = {}) -> int;

}  // namespace solscope::app
