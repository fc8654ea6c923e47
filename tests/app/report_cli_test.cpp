// End-to-end tests of `solscope report`: the demo trace, a trace with a SYNTHETIC kernel table, damage.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/process.hpp"
#include "support/solscope_cli.hpp"
#include "support/text_lines.hpp"

namespace solscope::app {
namespace {

using namespace std::chrono_literals;
using testing::lines_of;
using testing::run_process;

const std::string kMakeTrace = SOLSCOPE_MAKE_TRACE;
const std::string kDemo = std::string(SOLSCOPE_TEST_DATA_DIR) + "/demo-trace.sqlite";

class ReportCli : public testing::SolscopeCliTest {
 protected:
  ReportCli() : SolscopeCliTest(SOLSCOPE_BINARY, "solscope-report") {}
};

TEST_F(ReportCli, demo_trace_text_fits_100_columns_with_four_phases_per_gpu) {
  const auto r = solscope({"report", kDemo});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto lines = lines_of(r.out);
  for (const auto& line : lines) EXPECT_LE(line.size(), 100U) << line;
  EXPECT_EQ(lines.at(0), "solscope report: " + kDemo);
  EXPECT_EQ(lines.at(1).rfind("SYNTHETIC trace, not measured: ", 0), 0U);
  EXPECT_EQ(lines.at(2), "4 GPUs, 4800 samples, 0 kernel calls");
  EXPECT_NE(r.out.find("GPU 3  SYNTHETIC demo GPU"), std::string::npos) << r.out;
  EXPECT_NE(
      r.out.find("  bound time    idle 25.0 % compute 25.0 % memory 25.0 % latency 25.0 % unknown 0.0 %"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  phases (4, at least 1.2 s each):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  kernels: not in this trace (`solscope run` records them)"), std::string::npos);
}

TEST_F(ReportCli, demo_trace_json_has_the_phases_of_the_synthetic_profile) {
  const auto r = solscope({"report", kDemo, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["report_version"], 1);
  EXPECT_EQ(json["samples"], 4800);
  EXPECT_TRUE(json["trace"]["kernel_log"].is_null());
  ASSERT_EQ(json["gpus"].size(), 4U);
  for (const auto& gpu : json["gpus"]) {
    EXPECT_EQ(gpu["samples"], 1200);
    EXPECT_DOUBLE_EQ(gpu["sampled_s"].get<double>(), 120.0);
    for (const char* bound : {"idle", "compute", "memory", "latency"}) {
      EXPECT_NEAR(gpu["bound_s"][bound].get<double>(), 30.0, 1e-9) << bound;
    }
    EXPECT_DOUBLE_EQ(gpu["bound_s"]["unknown"].get<double>(), 0.0);
    EXPECT_EQ(gpu["kernels"]["calls"], 0);
    EXPECT_TRUE(gpu["attainable_compute_sol_pct"].is_null());
    EXPECT_GT(gpu["energy_j"].get<double>(), 0.0);
  }
  // GPU 0: idle, tensor-bound, DRAM-bound, launch-bound quarters of 30 s each.
  const auto& phases = json["gpus"][0]["phases"];
  ASSERT_EQ(phases.size(), 4U);
  const char* bounds[] = {"idle", "compute", "memory", "latency"};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(phases[i]["bound"], bounds[i]);
    EXPECT_NEAR(phases[i]["start_s"].get<double>(), 30.0 * static_cast<double>(i), 1e-9);
    EXPECT_NEAR(phases[i]["duration_s"].get<double>(), 30.0, 1e-9);
    EXPECT_EQ(phases[i]["samples"], 300);
  }
  EXPECT_EQ(phases[1]["compute_pipe"], "tensor");
  EXPECT_EQ(phases[2]["memory_path"], "dram");
}

TEST_F(ReportCli, synthetic_kernel_table_gives_the_top_kernels_with_their_sol) {
  auto made = run_process({kMakeTrace, "-o", path("k.sqlite"), "--profile", "demo", "--devices", "2", "--hz",
                           "10", "--seconds", "40", "--kernels"},
                          60s);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  auto r = solscope({"report", path("k.sqlite"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["trace"]["kernel_log"], "synthetic");
  EXPECT_EQ(json["kernel_calls"], 23000);
  const auto& kernels = json["gpus"][0]["kernels"];
  EXPECT_EQ(kernels["calls"], 11500);
  EXPECT_EQ(kernels["names"], 4);
  const auto& top = kernels["top"];
  ASSERT_EQ(top.size(), 4U);
  EXPECT_EQ(top[0]["name"], "synthetic_decode_gemv_bf16");
  EXPECT_EQ(top[0]["calls"], 4000);
  EXPECT_EQ(top[0]["memory_path"], "dram");
  EXPECT_EQ(top[0]["overlapped"], false);
  EXPECT_GT(top[0]["memory_sol_pct"].get<double>(), 60.0);
  EXPECT_EQ(top[1]["name"], "synthetic_gemm_bf16_128x256");
  EXPECT_EQ(top[1]["calls"], 2000);
  EXPECT_DOUBLE_EQ(top[1]["total_s"].get<double>(), 8.0);
  EXPECT_EQ(top[1]["compute_pipe"], "tensor");
  EXPECT_GT(top[1]["compute_sol_pct"].get<double>(), 60.0);
  EXPECT_EQ(top[1]["overlapped"], true);
  EXPECT_EQ(top[2]["name"], "synthetic_allreduce_ring");
  EXPECT_EQ(top[2]["overlapped"], true);
  EXPECT_EQ(top[3]["name"], "synthetic_elementwise_add");
  EXPECT_EQ(top[3]["calls"], 5000);
  double share = 0.0;
  for (const auto& k : top) share += k["time_share_pct"].get<double>();
  EXPECT_NEAR(share, 100.0, 1e-9);

  r = solscope({"report", path("k.sqlite")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& line : lines_of(r.out)) EXPECT_LE(line.size(), 100U) << line;
  EXPECT_NE(r.out.find("  kernels: 11500 calls of 4 kernels, 16.950 s of GPU time; top 4 by time:"),
            std::string::npos)
      << r.out;
}

// Issue 24: the SYNTHETIC workloads scenario (tests/data/synthetic/workloads.hpp) through the generator, the
// trace and `report`: a time-sliced GPU split 0.75/0.25, an exclusive GPU idle 8 s of the 16 its pod held.
TEST_F(ReportCli, a_trace_with_workloads_gives_the_totals_per_workload) {
  auto made = run_process({kMakeTrace, "-o", path("w.sqlite"), "--workloads"}, 60s);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  auto r = solscope({"report", path("w.sqlite"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["trace"]["workload_refresh"], true);
  const auto& w = json["workloads"];
  ASSERT_EQ(w.size(), 3U);
  EXPECT_EQ(w[0]["workload"], "batch/etl-c/worker");
  EXPECT_EQ(w[0]["sharing"], "exclusive");
  EXPECT_DOUBLE_EQ(w[0]["gpu_s"].get<double>(), 16.0);
  EXPECT_DOUBLE_EQ(w[0]["idle_s"].get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(w[0]["compute_sol_pct"].get<double>(), 32.5);
  EXPECT_DOUBLE_EQ(w[0]["energy_j"].get<double>(), 3360.0);
  EXPECT_EQ(w[1]["workload"], "research/train-a/main");
  EXPECT_EQ(w[1]["sharing"], "time_sliced");
  EXPECT_DOUBLE_EQ(w[1]["gpu_s"].get<double>(), 15.0);
  EXPECT_DOUBLE_EQ(w[1]["energy_j"].get<double>(), 5250.0);
  EXPECT_EQ(w[2]["workload"], "serving/infer-b/server");
  EXPECT_DOUBLE_EQ(w[2]["gpu_s"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(w[2]["energy_j"].get<double>(), 1750.0);

  r = solscope({"report", path("w.sqlite")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.out.find(
          "  research/train-a/main        time_sliced 0         15.0    60.0 %   50.0 %    5250.0     0.0\n"),
      std::string::npos)
      << r.out;
  // The demo trace (schema 1) says it has none.
  r = solscope({"report", kDemo});
  EXPECT_NE(r.out.find("\nWorkloads: not in this trace (recorded before trace schema 5)\n"),
            std::string::npos);
  r = solscope({"report", kDemo, "--json"});
  EXPECT_TRUE(nlohmann::json::parse(r.out)["workloads"].is_null());
}

TEST_F(ReportCli, bad_traces_exit_5_and_a_bad_command_line_2) {
  auto r = solscope({"report", path("missing.sqlite")});
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_NE(r.err.find("no such trace"), std::string::npos) << r.err;
  std::ofstream(path("text.sqlite")) << "this is not a database\n";
  r = solscope({"report", path("text.sqlite")});
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_NE(r.err.find("not a solscope trace"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  // Cut to 64 KiB: nothing can be read.
  std::filesystem::copy_file(kDemo, path("cut.sqlite"));
  std::filesystem::resize_file(path("cut.sqlite"), 64 * 1024);
  r = solscope({"report", path("cut.sqlite")});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("no sample can be read"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  r = solscope({"report"});
  EXPECT_EQ(r.exit_code, 2);
  r = solscope({"report", kDemo, "--jsn"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean '--json'"), std::string::npos) << r.err;
}

TEST_F(ReportCli, a_damaged_trace_is_reported_from_what_can_be_read_with_a_warning) {
  // Cut to half: the samples before the cut make the report; stderr says what was lost.
  std::filesystem::copy_file(kDemo, path("half.sqlite"));
  std::filesystem::resize_file(path("half.sqlite"), std::filesystem::file_size(kDemo) / 2);
  const auto r = solscope({"report", path("half.sqlite"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("solscope: warning: trace " + path("half.sqlite"), 0), 0U) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_GT(json["samples"].get<int>(), 0);
  EXPECT_LT(json["samples"].get<int>(), 4800);
}

// `report --phases`: the demo trace's own phases of GPU 0, declared with the bound each must show, pass (exit
// 0); the same file with one phase claiming the wrong bound fails (exit 6, FAIL in the JSON); a bad file is
// exit 2.
TEST_F(ReportCli, declared_phases_pass_when_right_and_exit_6_when_one_is_wrong) {
  const auto report = solscope({"report", kDemo, "--json"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const auto json = nlohmann::json::parse(report.out);
  const auto& gpu = json["gpus"][1];
  nlohmann::json file{
      {"format", "solscope-phases-1"}, {"gpu", {{"uuid", gpu["uuid"]}}}, {"phases", nlohmann::json::array()}};
  for (const auto& phase : gpu["phases"]) {
    file["phases"].push_back({{"name", "phase_" + phase["bound"].get<std::string>()},
                              {"start_ns", phase["start_ns"]},
                              {"end_ns", phase["end_ns"]},
                              {"expect", {{"bound", phase["bound"]}}}});
  }
  ASSERT_GE(file["phases"].size(), 3U);
  const std::string right = path("right.json");
  std::ofstream(right) << file.dump();
  const auto passed = solscope({"report", kDemo, "--phases", right, "--json"});
  ASSERT_EQ(passed.exit_code, 0) << passed.err << passed.out;
  const auto judged = nlohmann::json::parse(passed.out)["declared_phases"];
  EXPECT_EQ(judged["device"], 1);
  EXPECT_EQ(judged["result"], "PASS");
  EXPECT_GT(judged["phases"][1]["samples"].get<int>(), 100);

  const std::size_t flipped = file["phases"][0]["expect"]["bound"] == "latency" ? 1 : 0;
  file["phases"][flipped]["expect"]["bound"] = "latency";
  const std::string wrong = path("wrong.json");
  std::ofstream(wrong) << file.dump();
  const auto failed = solscope({"report", kDemo, "--phases", wrong});
  EXPECT_EQ(failed.exit_code, 6) << failed.err;
  EXPECT_NE(failed.out.find("Declared phases"), std::string::npos) << failed.out;
  EXPECT_NE(failed.out.find("FAIL    bound"), std::string::npos) << failed.out;

  std::ofstream(path("bad.json")) << R"({"format": "solscope-phases-1", "phases": [{"name": "x"}]})";
  const auto bad = solscope({"report", kDemo, "--phases", path("bad.json")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("phase file: phase 1 (x): start_ns must be an integer"), std::string::npos)
      << bad.err;
  const auto several = solscope({"report", kDemo, "--phases", path("missing.json")});
  EXPECT_EQ(several.exit_code, 2);
}

}  // namespace
}  // namespace solscope::app
