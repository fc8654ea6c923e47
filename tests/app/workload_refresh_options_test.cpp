// The process and workload refresh's settings (issue 24): `--job-mapping-dir` from every layer of the option
// table (command line, SOLSCOPE_JOB_MAPPING_DIR, the config file, help), and the environment switches
// SOLSCOPE_KUBELET_SOCKET and SOLSCOPE_READ_ENVIRON read by the runtime's environment module.
#include <stdlib.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/config/bind.hpp"
#include "cli/config/config_file.hpp"
#include "cli/config/option_table.hpp"
#include "runtime/environment.hpp"
#include "support/run_cli.hpp"
#include "workload/pod_resources.hpp"

namespace solscope::app::config {
namespace {

auto env_of(std::map<std::string, std::string> values) -> EnvLookup {
  return [values = std::move(values)](std::string_view name) -> std::optional<std::string> {
    const auto it = values.find(std::string(name));
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

/// `--job-mapping-dir` as the command line, the environment and `config_file` give it (empty: no file).
auto job_mapping_dir(std::vector<std::string> args, const std::string& config_file) -> std::string {
  std::string dir;
  CLI::App app;
  add_option(app, Scope::Global, "--job-mapping-dir", dir);
  args.insert(args.begin(), "solscope");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  app.parse(static_cast<int>(argv.size()), argv.data());
  if (!config_file.empty()) {
    auto applied = apply_config_file(app, config_file, [](std::string_view) { return std::nullopt; });
    EXPECT_TRUE(applied) << applied.error().describe();
  }
  return dir;
}

TEST(WorkloadRefreshOptionsTest, job_mapping_dir_comes_from_every_layer_of_the_option_table) {
  const OptionSpec* spec = find_option(Scope::Global, "--job-mapping-dir");
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(env_name(*spec), "SOLSCOPE_JOB_MAPPING_DIR");
  EXPECT_EQ(config_key(*spec), "job-mapping-dir");

  const auto file =
      std::filesystem::temp_directory_path() / ("solscope-jobmap-" + std::to_string(::getpid()));
  std::ofstream(file) << "job-mapping-dir = \"/etc/jobs-from-file\"\n";
  ::unsetenv("SOLSCOPE_JOB_MAPPING_DIR");
  EXPECT_EQ(job_mapping_dir({}, ""), "");
  EXPECT_EQ(job_mapping_dir({}, file.string()), "/etc/jobs-from-file");
  ::setenv("SOLSCOPE_JOB_MAPPING_DIR", "/run/jobs-from-env", 1);
  EXPECT_EQ(job_mapping_dir({}, file.string()), "/run/jobs-from-env");
  EXPECT_EQ(job_mapping_dir({"--job-mapping-dir", "/var/lib/dcgm/jobs"}, file.string()),
            "/var/lib/dcgm/jobs");
  ::unsetenv("SOLSCOPE_JOB_MAPPING_DIR");
  std::filesystem::remove(file);
}

TEST(WorkloadRefreshOptionsTest, help_names_the_option_and_its_variable) {
  const solscope::testing::RunResult help = solscope::testing::run_cli({"--help"});
  EXPECT_NE(help.out.find("--job-mapping-dir"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("SOLSCOPE_JOB_MAPPING_DIR"), std::string::npos) << help.out;
}

TEST(WorkloadRefreshOptionsTest, defaults_ask_the_kubelet_and_read_environ) {
  const WorkloadRefreshOptions options = workload_refresh_options({}, env_of({}));
  EXPECT_EQ(options.kubelet_socket, workload::kKubeletPodResourcesSocket);
  EXPECT_TRUE(options.read_environ);
  EXPECT_EQ(options.job_mapping_dir, std::nullopt);
  EXPECT_EQ(options.period, std::chrono::milliseconds(2000));
}

TEST(WorkloadRefreshOptionsTest, the_kubelet_socket_is_a_path_or_off) {
  EXPECT_EQ(workload_refresh_options({}, env_of({{"SOLSCOPE_KUBELET_SOCKET", "/run/k/kubelet.sock"}}))
                .kubelet_socket,
            "/run/k/kubelet.sock");
  EXPECT_EQ(workload_refresh_options({}, env_of({{"SOLSCOPE_KUBELET_SOCKET", "off"}})).kubelet_socket, "");
  EXPECT_EQ(workload_refresh_options({}, env_of({{"SOLSCOPE_KUBELET_SOCKET", ""}})).kubelet_socket,
            workload::kKubeletPodResourcesSocket);
}

TEST(WorkloadRefreshOptionsTest, read_environ_0_switches_the_environ_reads_off) {
  EXPECT_FALSE(workload_refresh_options({}, env_of({{"SOLSCOPE_READ_ENVIRON", "0"}})).read_environ);
  EXPECT_TRUE(workload_refresh_options({}, env_of({{"SOLSCOPE_READ_ENVIRON", "1"}})).read_environ);
}

TEST(WorkloadRefreshOptionsTest, the_job_mapping_dir_reaches_the_refresh) {
  WorkloadOptions workloads;
  workloads.job_mapping_dir = "/var/lib/dcgm/jobs";
  EXPECT_EQ(workload_refresh_options(workloads, env_of({})).job_mapping_dir,
            std::optional<std::filesystem::path>("/var/lib/dcgm/jobs"));
}

}  // namespace
}  // namespace solscope::app::config
