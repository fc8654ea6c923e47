// `solscope check`: runs calibration kernels whose work is known exactly, samples them with every counter
// source the GPU allows, and prints expected next to measured, plus solscope's own sampling overhead
// (docs/accuracy.md; README "Usage").
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "check/run/check_run.hpp"
#include "cli/cli.hpp"

namespace solscope::app {

/// The trace meta key (-o) that holds the check's JSON report (check_json()).
inline constexpr std::string_view kCheckMetaKey = "check_report";

/// The options of `solscope check` (--json and --devices are the common ones).
struct CheckArgs {
  double seconds = 2.0;        ///< --seconds: each phase, 0.5 to 60
  std::string source = "all";  ///< --source pm|gpm|nvml|all
  std::string output;          ///< -o/--output: keep the trace here ("" = none)
  bool no_overhead = false;    ///< --no-overhead
  /// The GPU's kernel runner; set by cli.cpp from the vendor glue (gpu_backend.hpp). Null: the check says
  /// that this build cannot run kernels (exit 3).
  KernelRunnerFactory make_runner;
};

/// Adds --seconds, --source, -o/--output and --no-overhead (option table, Scope::Check) to `check`.
void add_check_options(CLI::App& check, CheckArgs& args);

/// Runs `solscope check` on the GPUs (probe_gpus, start_gpu_source, src/check's catalog, the real clock).
/// Exit codes: 0 every figure passed; 6 (kExitCheckFailed) a figure failed, a phase faulted, or no data; 3
/// no driver or GPU; 4 counters not permitted and nothing else could be checked; 2 a bad option; 1 a
/// failure (the -o trace could not be written).
auto run_check_command(const CommonOptions& common, const CheckArgs& args, std::ostream& out,
                       std::ostream& err) -> int;

/// run_check_command() with every dependency given (tests: fake runner, sources and clock). `deps.writer`
/// is ignored: -o opens its own.
auto run_check_with(const CommonOptions& common, const CheckArgs& args, CheckDeps deps,
                    const std::atomic<bool>& stop, std::ostream& out, std::ostream& err) -> int;

}  // namespace solscope::app
