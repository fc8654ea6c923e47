// The fixture of the end-to-end tests of the solscope binary: a directory of the test's own and one way to
// run the binary.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "support/process.hpp"
#include "support/scratch_dir.hpp"

namespace solscope::testing {

/// How long one solscope command may run before it is killed (then its test fails), unless a test says.
inline constexpr std::chrono::milliseconds kSolscopeTimeout{60'000};

/// A test of the binary with a directory of its own: $TMPDIR/<prefix>-<pid>-<test name> (see ScratchDir),
/// made empty before the test and removed after it.
class SolscopeCliTest : public ::testing::Test {
 protected:
  /// `binary`: the path of the solscope binary under test (the test target's SOLSCOPE_BINARY); `prefix`: the
  /// start of the directory's name.
  SolscopeCliTest(std::string binary, const std::string& prefix)
      : binary_(std::move(binary)), scratch_(prefix) {}
  /// `name` inside the test's directory, as a string for command lines.
  [[nodiscard]] auto path(const std::string& name) const -> std::string { return scratch_.file(name); }
  /// Runs `solscope ARGS...` (at most `timeout`, then SIGKILL) with `env` ("NAME=value") added to its
  /// environment; its stdout, stderr and exit code.
  auto solscope(std::vector<std::string> args, std::chrono::milliseconds timeout = kSolscopeTimeout,
                const std::vector<std::string>& env = {}) const -> ProcessResult {
    args.insert(args.begin(), binary_);
    return run_process(args, timeout, env);
  }

  const std::string binary_;  ///< the solscope binary under test
  ScratchDir scratch_;
  const std::filesystem::path dir_ = scratch_.path();  ///< the test's directory
};

}  // namespace solscope::testing
