// `solscope` / `solscope top`: the terminal view of every GPU (or of a trace), and its options.
#pragma once

#include <ostream>
#include <string>

#include "cli/cli.hpp"
#include "cli/commands.hpp"

namespace CLI {
class App;
}

namespace solscope::app {

/// Options of the terminal view (flags of `solscope` itself and of `solscope top`).
struct TopArgs {
  std::string connect;  ///< --connect HOST:PORT: show a running `solscope serve` instead of sampling
};

/// Adds the terminal view's options to `app`.
void add_top_options(CLI::App& app, TopArgs& args);

/// Runs the terminal view on a terminal; falls back to the plain line view when stdout is not a terminal
/// (or with --json, JSON Lines).
auto run_top(const CommonOptions& common, const WorkloadOptions& workloads, const TopArgs& args,
             std::ostream& out, std::ostream& err) -> int;

}  // namespace solscope::app
