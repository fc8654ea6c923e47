// `solscope ARGS...` run in the test's own process through app::run (no child process): its exit code and
// what it wrote. For tests of the command line that need no binary; tests/support/solscope_cli.hpp runs the
// real binary instead.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"

namespace solscope::testing {

/// What one in-process run returned and wrote.
struct RunResult {
  int code = -1;
  std::string out;
  std::string err;
};

/// Runs `solscope` with `args` (the program name is added) through app::run.
inline auto run_cli(std::vector<std::string> args) -> RunResult {
  args.insert(args.begin(), "solscope");
  std::vector<char*> argv;
  argv.reserve(args.size());
  for (std::string& a : args) argv.push_back(a.data());
  std::ostringstream out;
  std::ostringstream err;
  RunResult r;
  r.code = app::run(static_cast<int>(argv.size()), argv.data(), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace solscope::testing
