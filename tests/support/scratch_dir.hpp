// A directory of the running test's own, for tests that write files: made empty before the test, removed
// after it.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace solscope::testing {

/// $TMPDIR/<prefix>-<pid>-<test name>, created empty (with any left over from an earlier run removed) by the
/// constructor and removed with its contents by the destructor.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix)
      : dir_(std::filesystem::temp_directory_path() /
             (prefix + "-" + std::to_string(::getpid()) + "-" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  auto operator=(const ScratchDir&) -> ScratchDir& = delete;

  /// The directory.
  [[nodiscard]] auto path() const -> const std::filesystem::path& { return dir_; }
  /// `name` inside it, as a string for command lines.
  [[nodiscard]] auto file(const std::string& name) const -> std::string { return (dir_ / name).string(); }

 private:
  std::filesystem::path dir_;
};

}  // namespace solscope::testing
