// `solscope run`: the command, with the places where it reaches the machine (GPUs, NVML, /proc, the
// injection library) as hooks, so that tests run it against fakes.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>

#include "cli/commands.hpp"
#include "run/run_kernels.hpp"
#include "run/run_usage.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/source_factory.hpp"

namespace solscope::app {

/// What `run` uses of the machine. The defaults are the real ones (run_job()).
struct RunHooks {
  /// Opens and starts the GPUs' counter source (open_nvidia_source).
  std::function<Outcome<OpenedSource>(const sources::SourceConfig&)> open_source;
  /// A lister of the pids on each GPU (make_nvml_pid_lister), made on the thread that waits for CMD.
  std::function<GpuPidLister()> pid_lister;
  /// A process and its descendants (workload::descendant_pids over /proc).
  ProcessTreeLister process_tree;
  /// Every GPU's UUID -> NVML index (probe_gpus); empty when NVML cannot say.
  std::function<GpuUuidIndex()> gpu_uuids;
  /// The injection library to load into CMD (find_injection_library).
  std::function<std::optional<std::filesystem::path>()> injection_library;
};

/// The real hooks.
[[nodiscard]] auto machine_run_hooks() -> RunHooks;

/// run_job() with `hooks`.
/// `workloads`: the global workload options (--job-mapping-dir reaches the trace's workloads table).
auto run_job_with(const CommonOptions& common, const WorkloadOptions& workloads, const RunArgs& args,
                  const RunHooks& hooks, std::ostream& out, std::ostream& err) -> int;

}  // namespace solscope::app
