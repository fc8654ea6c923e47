// `solscope check` on this machine's GPUs: the real dependencies (the vendor glue, src/check's kernel
// catalog, the wall clock, the stop signals). The one place the app names src/check's functions.
#include "check/run/phase_plan.hpp"
#include "cli/check/check_command.hpp"
#include "runtime/signals.hpp"

namespace solscope::app {

auto default_check_catalog() -> CheckCatalog {
  return CheckCatalog{.kernels = check::kernel_specs(),
                      .idle = &check::idle_spec(),
                      .runs_on = check::kernel_runs_on,
                      .shape = check::launch_shape,
                      .expected = check::expected_figures};
}

auto run_check_command(const CommonOptions& common, const CheckArgs& args, std::ostream& out,
                       std::ostream& err) -> int {
  CheckDeps deps{.probe = [] { return probe_gpus(); },
                 .make_runner = args.make_runner,
                 .start_source = start_gpu_source,
                 .catalog = default_check_catalog(),
                 .clock = system_check_clock(),
                 .writer = nullptr};
  return run_check_with(common, args, std::move(deps), install_stop_signals(), out, err);
}

}  // namespace solscope::app
