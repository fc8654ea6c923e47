// The `[[workload]]` declarations file of the sampling commands: where it is looked for, and its errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "attainable/attainable_wiring.hpp"

namespace solscope::app {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

auto env_of(std::map<std::string, std::string> vars) -> workload::EnvLookup {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    const auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

class WorkloadsOptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("solscope-workloads-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  auto write(const fs::path& relative, const std::string& text) -> std::string {
    const fs::path path = dir_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path.string();
  }
  fs::path dir_;
};

TEST_F(WorkloadsOptionTest, default_file_follows_xdg_config_home_then_home) {
  const std::string xdg_file = write("xdg/solscope/workloads.toml", "");
  const std::string home_file = write("home/.config/solscope/workloads.toml", "");
  const std::string xdg = (dir_ / "xdg").string();
  const std::string home = (dir_ / "home").string();
  EXPECT_EQ(workloads_file_path({}, env_of({{"XDG_CONFIG_HOME", xdg}, {"HOME", home}})), xdg_file);
  EXPECT_EQ(workloads_file_path({}, env_of({{"XDG_CONFIG_HOME", ""}, {"HOME", home}})), home_file);
  EXPECT_EQ(workloads_file_path({}, env_of({{"HOME", home}})), home_file);
  EXPECT_EQ(workloads_file_path({}, env_of({{"HOME", (dir_ / "nobody").string()}})), "") << "no file: none";
  EXPECT_EQ(workloads_file_path({}, env_of({})), "");
  EXPECT_EQ(workloads_file_path({.file = "/x.toml"}, env_of({{"HOME", home}})), "/x.toml");
}

TEST_F(WorkloadsOptionTest, a_bad_file_names_the_file_and_line) {
  const std::string file = write("bad.toml", "[[workload]]\ngpus = [0]\nmodel = \"org/m\"\nbatchsize = 4\n");
  auto r = load_workload_declarations({.file = file}, env_of({}));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_THAT(r.error().message, HasSubstr(file + ":4: "));
  EXPECT_THAT(r.error().message, HasSubstr("batchsize"));

  const std::string syntax = write("syntax.toml", "[[workload]]\ngpus = [0\n");
  auto s = load_workload_declarations({.file = syntax}, env_of({}));
  ASSERT_FALSE(s.has_value());
  EXPECT_THAT(s.error().message, HasSubstr(syntax + ":"));
}

TEST_F(WorkloadsOptionTest, a_missing_named_file_is_an_error_but_a_missing_default_is_not) {
  auto missing = load_workload_declarations({.file = (dir_ / "nope.toml").string()}, env_of({}));
  ASSERT_FALSE(missing.has_value());
  EXPECT_THAT(missing.error().message, HasSubstr("cannot read workload declarations " +
                                                 (dir_ / "nope.toml").string() + ": No such file"));
  EXPECT_THAT(missing.error().hint, HasSubstr("--no-workloads"));
  auto directory = load_workload_declarations({.file = dir_.string()}, env_of({}));
  ASSERT_FALSE(directory.has_value());
  EXPECT_THAT(directory.error().message, HasSubstr("it is a directory"));

  auto none = load_workload_declarations({}, env_of({{"HOME", dir_.string()}}));
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
}

TEST_F(WorkloadsOptionTest, no_workloads_reads_nothing) {
  const std::string file = write("bad.toml", "not toml at all [");
  auto r = load_workload_declarations({.file = file, .disabled = true}, env_of({}));
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->empty());
}

TEST_F(WorkloadsOptionTest, reads_declarations) {
  const std::string file = write("w.toml",
                                 "[other]\nx = 1\n\n[[workload]]\ngpus = [0, 1]\nmodel = \"org/m\"\ntp = 2\n"
                                 "phase = \"prefill\"\nbatch = 4\nprompt = 512\n");
  auto r = load_workload_declarations({.file = file}, env_of({}));
  ASSERT_TRUE(r.has_value()) << r.error().describe();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ(r->at(0).line, 4);
  EXPECT_EQ(r->at(0).tensor_parallel, 2);
  EXPECT_EQ(r->at(0).shape.phase, workload::Phase::Prefill);
  EXPECT_EQ(r->at(0).shape.prompt, 512);
}

}  // namespace
}  // namespace solscope::app
