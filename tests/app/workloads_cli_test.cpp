// End-to-end tests of the workload options of the solscope binary on a machine without an NVIDIA driver.
#include <dlfcn.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/process.hpp"

namespace solscope::app {
namespace {

using namespace std::chrono_literals;
using testing::run_process;

const std::string kBinary = SOLSCOPE_BINARY;
const std::string kDemo = std::string(SOLSCOPE_TEST_DATA_DIR) + "/demo-trace.sqlite";
const std::string kLlama = std::string(SOLSCOPE_TEST_DATA_DIR) + "/hf_configs/llama-3.1-8b";

auto has_nvidia_driver() -> bool {
  void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h != nullptr) dlclose(h);
  return h != nullptr;
}

class WorkloadsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("solscope-wcli-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  auto write(const std::string& name, const std::string& text) const -> std::string {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  /// Runs solscope with HOME and XDG_CONFIG_HOME inside the test's directory, so no user file is read.
  auto solscope(std::vector<std::string> args, std::vector<std::string> env = {}) const
      -> testing::ProcessResult {
    args.insert(args.begin(), kBinary);
    env.push_back("HOME=" + dir_.string());
    env.push_back("XDG_CONFIG_HOME=" + (dir_ / "config").string());
    return run_process(args, 60s, env);
  }
  std::filesystem::path dir_;
};

TEST_F(WorkloadsCliTest, a_bad_declarations_file_exits_2_with_its_line) {
  const std::string file = write("w.toml", "[[workload]]\ngpus = [0]\nmodel = \"org/m\"\ntp = 0\n");
  auto r = solscope({"--json", "--workloads", file});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("solscope: error: " + file + ":4: "), std::string::npos) << r.err;
  auto env = solscope({"record", "-o", (dir_ / "t.sqlite").string()}, {"SOLSCOPE_WORKLOADS=" + file});
  EXPECT_EQ(env.exit_code, 2) << env.err;
  EXPECT_NE(env.err.find(file + ":4: "), std::string::npos) << env.err;
}

TEST_F(WorkloadsCliTest, the_default_file_is_read_and_no_workloads_skips_it) {
  if (has_nvidia_driver()) GTEST_SKIP() << "an NVIDIA driver is installed here";
  std::filesystem::create_directories(dir_ / "config" / "solscope");
  write("config/solscope/workloads.toml", "[[workload]]\nbogus = 1\n");
  auto r = solscope({"--json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("workloads.toml:2: "), std::string::npos) << r.err;
  auto off = solscope({"--json", "--no-workloads"});
  EXPECT_EQ(off.exit_code, 3) << "no driver, and the file is not read: " << off.err;
}

TEST_F(WorkloadsCliTest, replay_ignores_declarations) {
  const std::string file = write("w.toml", "not toml [");
  auto replay = solscope({"replay", kDemo, "--json", "--workloads", file});
  EXPECT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_NE(replay.out.find("\"attainable_compute_sol_pct\""), std::string::npos);
}

TEST_F(WorkloadsCliTest, devices_workloads_without_a_driver_keeps_exit_3) {
  if (has_nvidia_driver()) GTEST_SKIP() << "an NVIDIA driver is installed here";
  auto r = solscope({"devices", "--workloads"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("solscope: error: no NVIDIA driver found"), std::string::npos) << r.err;
  auto with_file = solscope({"devices", "--workloads", write("w.toml", "")});
  EXPECT_EQ(with_file.exit_code, 3) << with_file.err;
  EXPECT_EQ(with_file.err.find("unknown"), std::string::npos) << with_file.err;
}

TEST_F(WorkloadsCliTest, ceiling_gpu_auto_without_a_driver_exits_3) {
  if (has_nvidia_driver()) GTEST_SKIP() << "an NVIDIA driver is installed here";
  auto r = solscope({"ceiling", "--gpu", "auto", "--model", kLlama});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("solscope: error: no NVIDIA driver found"), std::string::npos) << r.err;
  auto named = solscope({"ceiling", "--gpu", "H100", "--model", kLlama});
  EXPECT_EQ(named.exit_code, 0) << named.err;
}

}  // namespace
}  // namespace solscope::app
