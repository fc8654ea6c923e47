// Placeholder: the terminal view lands with issue 3; until then the plain live view.
#include "app/top_command.hpp"

#include <CLI/CLI.hpp>

namespace solscope::app {

void add_top_options(CLI::App& app, TopArgs& args) {
  app.add_option("--connect", args.connect, "show a running `solscope serve` (HOST:PORT)")
      ->envname("SOLSCOPE_CONNECT");
}

auto run_top(const CommonOptions& common, const WorkloadOptions& workloads, const TopArgs& /*args*/,
             std::ostream& out, std::ostream& err) -> int {
  return run_live(common, workloads, out, err);
}

}  // namespace solscope::app
