// `solscope report` on the SYNTHETIC 4-rank data-parallel step (`solscope_make_synthetic_trace --dp-step`,
// tests/data/synthetic/dp_step_scenario.md): the Training steps section's figures, text and JSON.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/process.hpp"
#include "support/solscope_cli.hpp"
#include "support/text_lines.hpp"

namespace solscope::app {
namespace {

using namespace std::chrono_literals;
using testing::lines_of;
using testing::run_process;

const std::string kMakeTrace = SOLSCOPE_MAKE_TRACE;

class TrainingStepsCli : public testing::SolscopeCliTest {
 protected:
  TrainingStepsCli() : SolscopeCliTest(SOLSCOPE_BINARY, "solscope-steps") {}
  void SetUp() override {
    auto made = run_process({kMakeTrace, "-o", path("dp.sqlite"), "--dp-step"}, 60s);
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }
};

TEST_F(TrainingStepsCli, the_text_has_each_ranks_iterations_and_the_straggler) {
  const auto r = solscope({"report", path("dp.sqlite")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  for (const auto& line : lines_of(r.out)) EXPECT_LE(line.size(), 100U) << line;
  const std::size_t at =
      r.out.find("\nTraining steps (docs/report.md \"Training steps\"):\nGPU 0: 5 iterations, ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string section = r.out.substr(at);
  EXPECT_NE(section.find("                      p50 ms     p90 ms     p99 ms    mean ms   of iter.\n"
                         "  iteration          100.000    100.000    100.000    100.000    100.0 %\n"
                         "  compute             76.125     76.125     76.125     76.125     76.1 %\n"
                         "  communication       28.500     28.500     28.500     28.500     28.5 %\n"
                         "  exposed comm.       14.275     14.275     14.275     14.275     14.3 %\n"
                         "  collectives (of the communication time): all_reduce 100.0 %\n"),
            std::string::npos)
      << section;
  EXPECT_NE(
      section.find("  median iteration #1 (100.000 ms): compute alone 61.900, overlapped comm. 14.225,\n"
                   "    exposed comm. 14.275, idle 9.600 ms\n"),
      std::string::npos)
      << section;
  EXPECT_NE(section.find("      1      0.000    100.000      76.125     28.500      14.275        6\n"),
            std::string::npos)
      << section;
  EXPECT_NE(
      section.find("Across 4 GPUs (kernel log, medians):\n"
                   "  GPU              iteration ms  compute ms    comm ms  exposed ms\n"
                   "  GPU 0                 100.000      76.125     28.500      14.275\n"
                   "  GPU 1                 100.000      76.250     28.250      14.150\n"
                   "  GPU 2                 100.000      82.400     15.950       8.000\n"
                   "  GPU 3                 100.000      76.000     28.750      14.400\n"
                   "  straggler: GPU 2 (compute 8.15 % above the GPUs' median); iteration spread 0.00 %\n"),
      std::string::npos)
      << section;
}

TEST_F(TrainingStepsCli, the_json_has_the_exact_figures) {
  const auto r = solscope({"report", path("dp.sqlite"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  const auto& steps = json["training_steps"];
  ASSERT_EQ(steps["gpus"].size(), 4U);
  const double compute_ms[] = {76.125, 76.25, 82.4, 76.0};
  const double comm_ms[] = {28.5, 28.25, 15.95, 28.75};
  const double exposed_ms[] = {14.275, 14.15, 8.0, 14.4};
  for (std::size_t rank = 0; rank < 4; ++rank) {
    const auto& g = steps["gpus"][rank];
    SCOPED_TRACE(rank);
    EXPECT_EQ(g["source"], "kernel_log");
    EXPECT_EQ(g["iteration_count"], 5);
    ASSERT_EQ(g["iterations"].size(), 5U);
    for (const auto& it : g["iterations"]) {
      EXPECT_EQ(it["end_ns"].get<std::int64_t>() - it["start_ns"].get<std::int64_t>(), 100'000'000);
      EXPECT_DOUBLE_EQ(it["compute_ms"].get<double>(), compute_ms[rank]);
      EXPECT_DOUBLE_EQ(it["communication_ms"].get<double>(), comm_ms[rank]);
      EXPECT_DOUBLE_EQ(it["exposed_communication_ms"].get<double>(), exposed_ms[rank]);
    }
    EXPECT_EQ(g["iteration"]["p99_ms"].get<double>(), 100.0);
    EXPECT_DOUBLE_EQ(g["exposed_communication"]["p50_ms"].get<double>(), exposed_ms[rank]);
    EXPECT_DOUBLE_EQ(g["exposed_communication"]["share_pct"].get<double>(), exposed_ms[rank]);
    EXPECT_DOUBLE_EQ(g["collectives_pct"]["all_reduce"].get<double>(), 100.0);
  }
  EXPECT_EQ(steps["rank_source"], "kernel_log");
  EXPECT_EQ(steps["straggler"]["index"], 2);
  EXPECT_NEAR(steps["straggler"]["spread_pct"].get<double>(), (82'400.0 - 76'187.5) / 76'187.5 * 100.0, 1e-9);
  EXPECT_EQ(steps["straggler"]["iteration_spread_pct"].get<double>(), 0.0);
}

// --step-range picks the NVTX range that marks a step: the nested "forward" range (opened 1.5 ms before
// each step's forward kernel) bounds the same iterations; a name the job never opened gives none, and says
// so.
TEST_F(TrainingStepsCli, step_range_names_the_nvtx_range_that_marks_a_step) {
  const auto forward = solscope({"report", path("dp.sqlite"), "--step-range", "forward", "--json"});
  ASSERT_EQ(forward.exit_code, 0) << forward.err;
  const auto json = nlohmann::json::parse(forward.out);
  for (const auto& g : json["training_steps"]["gpus"]) {
    EXPECT_EQ(g["boundary"], "nvtx");
    EXPECT_EQ(g["nvtx_range"], "forward");
    EXPECT_EQ(g["iteration_count"], 5);
  }
  EXPECT_DOUBLE_EQ(json["training_steps"]["gpus"][2]["compute"]["p50_ms"].get<double>(), 82.4);

  const auto none = solscope({"report", path("dp.sqlite"), "--step-range", "no_such_range"});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_NE(none.out.find("GPU 0: no iterations in the kernel log: no NVTX range named \"no_such_range\""),
            std::string::npos)
      << none.out;
}

}  // namespace
}  // namespace solscope::app
