// Runs `solscope ceiling` in-process for the app tests (tests/app/ceiling_*_test.cpp): exit code and the
// text written to stdout and stderr.
#pragma once

#include <sstream>
#include <string>

#include "cli/ceiling/ceiling_command.hpp"

namespace solscope::app::testing {

struct CommandRun {
  int code = -1;
  std::string out;
  std::string err;
};

inline auto run_with(const CeilingArgs& args) -> CommandRun {
  std::ostringstream out;
  std::ostringstream err;
  CommandRun r;
  r.code = run_ceiling(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace solscope::app::testing
