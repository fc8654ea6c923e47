// Issue 25: `solscope fleet --json` finds the straggler of a multi-node training job by iteration time,
// end to end in this process against the fleet tests' fake Prometheus (tests/support/fake_prometheus.hpp).
// SYNTHETIC: a 4-rank job ("training_job=llm-1") on hosts train-a and train-b (one pod per host), 125 ms
// per iteration on every rank; the SMs work 80 % of it on three ranks and 86.4 % on train-b GPU 1, whose
// compute (108 ms = 125 ms x 0.864) is 8 % longer than the others' (100 ms); 5 % of every rank's iteration is
// idle, so the exposed communication (shown, not the compute rule) is 15 % and 8.6 %. The fake's 8
// dcgm-exporter GPUs of host node0000 have no iteration. Also: a --job-label that is not a label name.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <atomic>
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

/// The 4 ranks' series, one value each (what avg_over_time over the window gives): `value(host, gpu)`.
template <class F>
auto ranks(F value) -> std::string {
  std::string out = "[";
  for (const char* host : {"train-a", "train-b"}) {
    for (const char* gpu : {"0", "1"}) {
      out += fmt::format(R"({}{{"metric":{{"host":"{}","gpu":"{}","UUID":"GPU-{}-{}","namespace":"ml",)"
                         R"("pod":"llm-{}","training_job":"llm-1"}},"value":[1717200000,"{}"]}})",
                         out.size() > 1 ? "," : "", host, gpu, host, gpu, host, value(host, gpu));
    }
  }
  return out + "]";
}

/// Answers solscope's GPU count (4) and the three iteration queries; `saw_label` is set when an iteration
/// query keeps the training_job label.
auto job_answers(std::atomic<bool>* saw_label) {
  return [saw_label](const std::string& q) -> std::optional<std::string> {
    if (q.rfind("count(", 0) == 0 && q.find("solscope_") != std::string::npos) {
      return std::string(R"([{"metric":{},"value":[1717200000,"4"]}])");
    }
    const bool seconds = q.find("solscope_iteration_seconds") != std::string::npos;
    const bool compute = q.find("solscope_iteration_compute_ratio") != std::string::npos;
    const bool exposed = q.find("solscope_iteration_exposed_communication_ratio") != std::string::npos;
    if (!seconds && !compute && !exposed) return std::nullopt;
    if (q.find(", training_job)") != std::string::npos) *saw_label = true;
    if (seconds) return ranks([](const std::string&, const std::string&) { return 0.125; });
    return ranks([compute](const std::string& host, const std::string& gpu) {
      const bool straggler = host == "train-b" && gpu == "1";
      if (compute) return straggler ? 0.864 : 0.8;
      return straggler ? 0.086 : 0.15;
    });
  };
}

auto row_of(const nlohmann::json& doc, const std::string& host, const std::string& gpu) -> nlohmann::json {
  for (const auto& r : doc["rows"]) {
    if (r["host"] == host && r["gpu"] == gpu) return r;
  }
  return nullptr;
}

TEST(FleetIterationsCli, the_job_label_groups_four_ranks_on_two_hosts_and_finds_the_8_percent_straggler) {
  bench::FakePrometheus prom(1, false);
  std::atomic<bool> saw_label{false};
  prom.answer_instant_with(job_answers(&saw_label));
  const RunResult r = run_cli({"fleet", "--prometheus", prom.url(), "--at", "2024-06-01T00:00:00Z", "--json",
                               "--job-label", "training_job"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(saw_label.load());
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["job_label"], "training_job");
  ASSERT_EQ(doc["rows"].size(), 12u);  // 4 ranks (solscope) + 8 dcgm-exporter GPUs
  ASSERT_EQ(doc["iteration_groups"].size(), 1u);
  const auto& g = doc["iteration_groups"][0];
  EXPECT_EQ(g["group"], "training_job=llm-1");
  ASSERT_EQ(g["gpus"].size(), 4u);
  EXPECT_EQ(g["gpus"][0]["host"], "train-a");
  EXPECT_EQ(g["gpus"][3]["host"], "train-b");
  EXPECT_EQ(g["straggler"]["host"], "train-b");
  EXPECT_EQ(g["straggler"]["gpu"], "1");
  EXPECT_NEAR(g["straggler_compute_s"].get<double>(), 0.108, 1e-9);
  EXPECT_NEAR(g["median_compute_s"].get<double>(), 0.100, 1e-9);
  EXPECT_NEAR(g["spread_pct"].get<double>(), 8.0, 1e-9);
  EXPECT_NEAR(g["iteration_spread_pct"].get<double>(), 0.0, 1e-9);

  const auto straggler = row_of(doc, "train-b", "1");
  ASSERT_FALSE(straggler.is_null()) << r.out;
  EXPECT_EQ(straggler["series"], "solscope");
  EXPECT_DOUBLE_EQ(straggler["iteration_s"].get<double>(), 0.125);
  EXPECT_DOUBLE_EQ(straggler["compute_ratio"].get<double>(), 0.864);
  EXPECT_DOUBLE_EQ(straggler["exposed_communication_ratio"].get<double>(), 0.086);
  EXPECT_NEAR(straggler["iteration_compute_s"].get<double>(), 0.108, 1e-9);  // 125 ms x 0.864
  EXPECT_EQ(straggler["job_label_value"], "llm-1");
  EXPECT_EQ(straggler["iteration_group"], "training_job=llm-1");
  EXPECT_TRUE(straggler["iteration_straggler"].get<bool>());
  const auto other = row_of(doc, "train-a", "0");
  EXPECT_DOUBLE_EQ(other["compute_ratio"].get<double>(), 0.8);
  EXPECT_NEAR(other["iteration_compute_s"].get<double>(), 0.100, 1e-9);
  EXPECT_FALSE(other["iteration_straggler"].get<bool>());
  // A GPU with no periodic iteration: null figures, in no group.
  const auto dcgm = row_of(doc, "node0000", "0");
  ASSERT_FALSE(dcgm.is_null()) << r.out;
  EXPECT_TRUE(dcgm["iteration_s"].is_null());
  EXPECT_TRUE(dcgm["compute_ratio"].is_null());
  EXPECT_TRUE(dcgm["iteration_compute_s"].is_null());
  EXPECT_EQ(dcgm["iteration_group"], "");
  EXPECT_FALSE(dcgm["iteration_straggler"].get<bool>());
}

// Without --job-label the ranks are grouped by their pod (one per host): two groups of two, and
// train-b's straggler is GPU 1 with (108 - 104) / 104 = 3.85 % (the median of two is their mean).
TEST(FleetIterationsCli, without_a_job_label_the_ranks_are_grouped_by_pod) {
  bench::FakePrometheus prom(1, false);
  std::atomic<bool> saw_label{false};
  prom.answer_instant_with(job_answers(&saw_label));
  const RunResult r =
      run_cli({"fleet", "--prometheus", prom.url(), "--at", "2024-06-01T00:00:00Z", "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_FALSE(saw_label.load());
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["job_label"], "");
  ASSERT_EQ(doc["iteration_groups"].size(), 2u);
  EXPECT_EQ(doc["iteration_groups"][0]["group"], "job:ml/llm-train-a");
  EXPECT_EQ(doc["iteration_groups"][1]["group"], "job:ml/llm-train-b");
  EXPECT_EQ(doc["iteration_groups"][1]["straggler"]["gpu"], "1");
  EXPECT_NEAR(doc["iteration_groups"][1]["spread_pct"].get<double>(), 400.0 / 104.0, 1e-9);
}

TEST(FleetIterationsCli, a_job_label_that_is_not_a_label_name_exits_2_before_any_query) {
  bench::FakePrometheus prom(1, false);
  for (const char* bad : {"training-job", "__name__", "9job"}) {
    const RunResult r = run_cli({"fleet", "--prometheus", prom.url(), "--json", "--job-label", bad});
    EXPECT_EQ(r.code, kExitUsage) << bad;
    EXPECT_NE(r.err.find("--job-label " + std::string(bad) + " is not a Prometheus label name"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("--job-label pod"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  EXPECT_EQ(prom.posts() + prom.gets(), 0);
}

}  // namespace
}  // namespace solscope::app
