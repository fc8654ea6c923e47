// Runs `solscope ceiling` in-process for the app tests (tests/app/ceiling_*_test.cpp): exit code and the
// text written to stdout and stderr.
#pragma once

#include <sstream>
#include <string>

#include "ceiling/test_support.hpp"
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

/// `solscope ceiling --serve` of Llama-3.1-8B on H100 at isl 1024, osl 256 (issue 13's reference traffic);
/// the concurrency is the option's default until a test sets it.
inline auto llama_serve_args() -> CeilingArgs {
  CeilingArgs args;
  args.gpu = "H100";
  args.model = ceiling::testing::fixture_path("llama-3.1-8b");
  args.serve = true;
  args.isl = 1024;
  args.osl = 256;
  return args;
}

}  // namespace solscope::app::testing
