// Capacity planning options of `solscope ceiling --serve` (README "solscope ceiling",
// docs/design/ceiling-model.md section 6.6): --concurrency max, --max-tpot-ms, --max-ttft-ms and --sweep [N]
// with --csv and --html FILE. The choice and the sweep come from ceiling/capacity.hpp; this file checks the
// options, runs them and prints or writes the result.
#pragma once

#include <ostream>
#include <string>

#include "ceiling/gpu_spec.hpp"
#include "ceiling/model_arch.hpp"
#include "ceiling/workload.hpp"
#include "cli/ceiling/ceiling_command.hpp"
#include "runtime/exit_codes.hpp"

namespace solscope::app {

/// True when `args` asks for a capacity answer (--concurrency max, a latency limit or --sweep) rather than
/// the serving ceiling at one given concurrency.
[[nodiscard]] auto wants_capacity(const CeilingArgs& args) -> bool;

/// The option rules, checked before any file is read: capacity options and --csv/--html need --serve;
/// --csv and --html need --sweep; --csv and --json exclude each other. Errors: InvalidArgument (exit 2)
/// naming the option and what to do.
[[nodiscard]] auto check_capacity_options(const CeilingArgs& args) -> Outcome<void>;

/// What run_capacity needs besides the options.
struct CapacityInput {
  const ceiling::GpuDatabase& db;
  const ceiling::GpuSpec& gpu;
  const ceiling::ModelArch& arch;
  const ceiling::Workload& base;  ///< TP, dtypes, clock and parallel layout (its step is ignored)
  std::string config_path;        ///< the config.json read (also an input --html may not overwrite)
};

/// With --sweep: the sweep as text, --json or --csv on `out`, and the HTML page to --html (its path checked
/// first by check_output_path: never an input, an existing file only with --force). Otherwise: the serving
/// report (text or --json) at the chosen concurrency, saying which and why. Errors: exit 2 for bad values,
/// a bad --html path and no concurrency within the limits or the memory (NotFound naming the tightest
/// figures); exit 1 when the page cannot be written.
[[nodiscard]] auto run_capacity(const CeilingArgs& args, const CapacityInput& in, std::ostream& out)
    -> Outcome<void>;

}  // namespace solscope::app
