// The solscope command line: subcommands and the mapping of failures to exit codes. The option values the
// sampling commands share are runtime/sampling_options.hpp.
#pragma once

#include <iosfwd>

#include "runtime/sampling_options.hpp"

namespace solscope::app {

/// Runs the command line. Returns the process exit code (exit_codes.hpp); never throws.
auto run(int argc, char** argv, std::ostream& out, std::ostream& err) -> int;

}  // namespace solscope::app
