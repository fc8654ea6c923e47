// `solscope check` run as the built binary on a machine without an NVIDIA driver (like CI): it says so.
#include <dlfcn.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "support/process.hpp"

namespace solscope::app {
namespace {

using namespace std::chrono_literals;

auto has_nvidia_driver() -> bool {
  void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h != nullptr) dlclose(h);
  return h != nullptr;
}

auto solscope(std::vector<std::string> args) -> testing::ProcessResult {
  args.insert(args.begin(), SOLSCOPE_BINARY);
  return testing::run_process(args, 60s);
}

TEST(CheckCliTest, without_a_driver_it_says_so_and_exits_3) {
  if (has_nvidia_driver()) GTEST_SKIP() << "an NVIDIA driver is installed here";
  const auto r = solscope({"check"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("solscope: error: no NVIDIA driver found. install the NVIDIA driver", 0), 0u)
      << r.err;
}

TEST(CheckCliTest, without_a_driver_the_trace_file_is_not_left_behind) {
  if (has_nvidia_driver()) GTEST_SKIP() << "an NVIDIA driver is installed here";
  const auto path = std::filesystem::temp_directory_path() /
                    ("solscope-check-cli-" + std::to_string(::getpid()) + ".sqlite");
  std::filesystem::remove(path);
  const auto r = solscope({"check", "--json", "-o", path.string()});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(std::filesystem::exists(path)) << "an empty trace this run created is removed";
}

TEST(CheckCliTest, bad_options_are_a_usage_error) {
  auto r = solscope({"check", "--seconds", "0.1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--seconds: 0.1 is out of range (give 0.5 to 60)"), std::string::npos) << r.err;
  r = solscope({"check", "--source", "cupti"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--source"), std::string::npos) << r.err;
}

TEST(CheckCliTest, help_lists_exit_code_6) {
  const auto r = solscope({"check", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("6 `solscope check` found a figure off"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--no-overhead"), std::string::npos);
}

TEST(CheckCliTest, help_names_the_common_options_check_uses_and_the_method) {
  const auto r = solscope({"check", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(
      r.out.find("--devices LIST (which GPUs; default all) and --json (the table as one JSON document)"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("docs/accuracy.md"), std::string::npos);
  EXPECT_NE(r.out.find("6 `solscope check` found a figure off"), std::string::npos);
}

}  // namespace
}  // namespace solscope::app
