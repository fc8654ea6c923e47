// Issue 24: `solscope fleet --by namespace|pod|job` end to end in this process, against the fleet tests' fake
// Prometheus (tests/support/fake_prometheus.hpp) answering the roll-up's 6 queries for two namespaces
// (SYNTHETIC figures): the table, the JSON, and an unknown --by value.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/exit_codes.hpp"
#include "support/fake_prometheus.hpp"
#include "support/run_cli.hpp"

namespace solscope::app {
namespace {

using testing::run_cli;
using testing::RunResult;

/// Two namespaces: team-a has 2 GPUs, 7200 GPU-s allocated, 1800 idle, 60 busy-idle steps of 15 s, Compute
/// SOL 40 % on 482 steps; team-b 1 GPU, 3600, 2700, 120 steps, 10 % on 241 steps. One series without a
/// namespace is left out.
auto two_namespaces(const std::string& q) -> std::optional<std::string> {
  if (q.find("solscope_workload_gpu_seconds_total") == std::string::npos &&
      q.find(R"(namespace!="")") == std::string::npos) {
    return std::nullopt;
  }
  const auto two = [](double a, double b) {
    return fmt::format(R"([{{"metric":{{"namespace":"team-a"}},"value":[1717200000,"{}"]}},)"
                       R"({{"metric":{{"namespace":"team-b"}},"value":[1717200000,"{}"]}},)"
                       R"({{"metric":{{}},"value":[1717200000,"99"]}}])",
                       a, b);
  };
  if (q.rfind("count by (namespace)", 0) == 0) return two(2, 1);
  if (q.find(R"(bound="idle")") != std::string::npos) return two(1800, 2700);
  if (q.find("(increase(") != std::string::npos) return two(7200, 3600);
  if (q.find("count_over_time(((") != std::string::npos) return two(60, 120);
  if (q.find("sum_over_time(") != std::string::npos) return two(482 * 40.0, 241 * 10.0);
  if (q.find("count_over_time((100") != std::string::npos) return two(482, 241);
  return std::string("[]");
}

TEST(FleetWorkloadsCli, by_namespace_prints_the_groups_most_wasted_first_with_exact_gpu_hours) {
  bench::FakePrometheus prom(1, false);
  prom.answer_instant_with(two_namespaces);
  const RunResult r =
      run_cli({"fleet", "--prometheus", prom.url(), "--by", "namespace", "--at", "2024-06-01T00:00:00Z"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("GPUs by namespace, most wasted first: prometheus at " + prom.url()),
            std::string::npos)
      << r.out;
  // team-b: 0.75 idle + 0.5 busy-idle = 1.25 wasted GPU-hours; team-a: 0.5 + 0.25 = 0.75.
  const std::string table =
      "NAMESPACE  GPUS  ALLOCATED GPU-h  IDLE GPU-h  BUSY-IDLE GPU-h  WASTED GPU-h  COMPUTE SOL\n"
      "team-b        1            1.000       0.750            0.500         1.250        10.0%\n"
      "team-a        2            2.000       0.500            0.250         0.750        40.0%\n"
      "total         3            3.000       1.250            0.750         2.000        25.0%\n";
  EXPECT_NE(r.out.find(table), std::string::npos) << r.out;
  EXPECT_EQ(prom.posts(), 6);  // the 6 roll-up queries, no per-GPU snapshot
}

TEST(FleetWorkloadsCli, by_namespace_json_has_the_same_figures) {
  bench::FakePrometheus prom(1, false);
  prom.answer_instant_with(two_namespaces);
  const RunResult r = run_cli(
      {"fleet", "--prometheus", prom.url(), "--by", "namespace", "--at", "2024-06-01T00:00:00Z", "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["by"], "namespace");
  EXPECT_EQ(doc["window_end_ns"], 1'717'200'000'000'000'000);
  EXPECT_EQ(doc["step_ns"], 15'000'000'000);
  ASSERT_EQ(doc["rows"].size(), 2u);
  EXPECT_EQ(doc["rows"][0]["group"], "team-b");
  EXPECT_EQ(doc["rows"][0]["gpus"], 1);
  EXPECT_DOUBLE_EQ(doc["rows"][0]["allocated_gpu_hours"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(doc["rows"][0]["idle_gpu_hours"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(doc["rows"][0]["busy_idle_gpu_hours"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(doc["rows"][0]["wasted_gpu_hours"].get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(doc["rows"][0]["compute_sol_mean_pct"].get<double>(), 10.0);
  EXPECT_EQ(doc["rows"][1]["group"], "team-a");
  EXPECT_EQ(doc["rows"][1]["gpus"], 2);
  EXPECT_DOUBLE_EQ(doc["rows"][1]["busy_idle_gpu_hours"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(doc["rows"][1]["compute_sol_mean_pct"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(doc["totals"]["wasted_gpu_hours"].get<double>(), 2.0);
}

TEST(FleetWorkloadsCli, an_unknown_by_value_exits_2_naming_the_accepted_ones_before_any_query) {
  bench::FakePrometheus prom(1, false);
  const RunResult r = run_cli({"fleet", "--prometheus", prom.url(), "--by", "namespaces", "--json"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("--by namespaces is not a way to group the fleet's GPUs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean --by namespace?"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("give --by namespace, --by pod or --by job"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(prom.posts() + prom.gets(), 0);
  const RunResult team = run_cli({"fleet", "--prometheus", prom.url(), "--by", "team"});
  EXPECT_EQ(team.code, kExitUsage);
  EXPECT_EQ(team.err.find("did you mean"), std::string::npos) << team.err;
}

}  // namespace
}  // namespace solscope::app
