// The JSON and text forms of the report.
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "report/report_builder.hpp"
#include "report/report_json.hpp"
#include "report/report_test_support.hpp"
#include "report/report_text.hpp"

namespace solscope::report {
namespace {

using testing::kMs;
using testing::Load;

auto sample_report() -> Report {
  core::DeviceInfo dev;
  dev.index = 0;
  dev.name = "test GPU";
  dev.uuid = "GPU-1";
  const std::vector<core::DeviceInfo> devices{dev};
  std::vector<core::KernelRecord> kernels(2);
  kernels[0].start_ns = 0;
  kernels[0].end_ns = 50 * kMs;
  kernels[0].name = std::string(200, 'x') + "\x1b[2J";  // long, with an escape sequence
  kernels[1].start_ns = 40 * kMs;
  kernels[1].end_ns = 60 * kMs;
  kernels[1].name = "small";
  ReportBuilder builder(devices, kernels);
  for (int i = 0; i < 30; ++i) {
    builder.add(testing::sample(
        0, i * 100, 100,
        Load{.bound = core::Bound::Compute, .compute = 80.0, .util = 100.0, .power_w = 500.0}));
  }
  // Samples without power or SOL: unknown figures.
  core::SolSample unknown;
  unknown.device_index = 1;
  unknown.t_end_ns = 100 * kMs;
  builder.add(unknown);
  return builder.finish(TraceFacts{.path = "run.sqlite",
                                   .synthetic = true,
                                   .source_description = "synthetic: test",
                                   .kernel_log = "synthetic"});
}

TEST(ReportJson, FieldsUnitsAndNulls) {
  const auto json = to_json(sample_report());
  EXPECT_EQ(json["report_version"], 1);
  EXPECT_EQ(json["trace"]["path"], "run.sqlite");
  EXPECT_EQ(json["trace"]["synthetic"], true);
  EXPECT_EQ(json["trace"]["kernel_log"], "synthetic");
  EXPECT_EQ(json["trace"]["kernels_dropped"], 0);
  EXPECT_TRUE(json["trace"]["command"].is_null()) << "not a `solscope run` trace";
  EXPECT_TRUE(json["trace"]["exit_status"].is_null());
  EXPECT_EQ(json["samples"], 31);
  EXPECT_EQ(json["kernel_calls"], 2);
  EXPECT_DOUBLE_EQ(json["phase_method"]["min_phase_s"].get<double>(), 1.0);
  ASSERT_EQ(json["gpus"].size(), 2U);
  const auto& g = json["gpus"][0];
  EXPECT_EQ(g["index"], 0);
  EXPECT_EQ(g["uuid"], "GPU-1");
  EXPECT_DOUBLE_EQ(g["duration_s"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(g["compute_sol_pct"].get<double>(), 80.0);
  EXPECT_EQ(g["compute_pipe"], "tensor");
  EXPECT_DOUBLE_EQ(g["energy_j"].get<double>(), 1500.0);
  EXPECT_DOUBLE_EQ(g["mean_power_w"].get<double>(), 500.0);
  EXPECT_TRUE(g["attainable_compute_sol_pct"].is_null());
  EXPECT_TRUE(g["compute_headroom_pct"].is_null());
  EXPECT_DOUBLE_EQ(g["bound_s"]["compute"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(g["bound_s"]["idle"].get<double>(), 0.0);
  ASSERT_EQ(g["phases"].size(), 1U);
  EXPECT_EQ(g["phases"][0]["bound"], "compute");
  EXPECT_DOUBLE_EQ(g["phases"][0]["start_s"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(g["phases"][0]["duration_s"].get<double>(), 3.0);
  EXPECT_EQ(g["kernels"]["calls"], 2);
  ASSERT_EQ(g["kernels"]["top"].size(), 2U);
  const auto& k = g["kernels"]["top"][0];
  EXPECT_EQ(k["name"].get<std::string>().size(), 204U);  // the JSON keeps the whole name
  EXPECT_EQ(k["calls"], 1);
  EXPECT_DOUBLE_EQ(k["total_s"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(k["mean_us"].get<double>(), 50000.0);
  EXPECT_DOUBLE_EQ(k["time_share_pct"].get<double>(), 100.0 * 50.0 / 70.0);
  EXPECT_EQ(k["overlapped"], true);
  EXPECT_EQ(k["overlapped_calls"], 1);
  const auto& unknown = json["gpus"][1];
  EXPECT_TRUE(unknown["compute_sol_pct"].is_null());
  EXPECT_TRUE(unknown["compute_pipe"].is_null());
  EXPECT_TRUE(unknown["memory_path"].is_null());
  EXPECT_TRUE(unknown["energy_j"].is_null());
  EXPECT_TRUE(unknown["gpu_util_pct"].is_null());
  EXPECT_EQ(unknown["kernels"]["top"].size(), 0U);
}

TEST(ReportText, FitsOneHundredColumnsAndEscapesNames) {
  const std::string text = render_text(sample_report());
  std::istringstream lines(text);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    ++count;
    EXPECT_LE(line.size(), kTextWidth) << line;
  }
  EXPECT_GT(count, 15);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_NE(text.find("SYNTHETIC"), std::string::npos);
  EXPECT_NE(text.find("Compute SOL    80.0 % tensor"), std::string::npos) << text;
  EXPECT_NE(text.find("energy        1500.0 J"), std::string::npos) << text;
  EXPECT_NE(text.find("xxx... "), std::string::npos) << text;
  EXPECT_NE(text.find("attainable    n/a"), std::string::npos);
  EXPECT_NE(text.find("energy        n/a"), std::string::npos);
}

// Issue 23: a MIG instance is named by core::device_label in the text and the JSON (which the HTML report
// shows), with its physical GPU and parent UUID; before, it was "GPU <its own index>" like a whole GPU.
TEST(ReportText, AMigInstanceIsNamedAsOne) {
  core::DeviceInfo whole;
  whole.index = 0;
  whole.name = "NVIDIA A30";
  whole.uuid = "GPU-0";
  core::DeviceInfo slice = whole;
  slice.index = 1;
  slice.uuid = "";
  slice.parent_uuid = "GPU-0";
  slice.gpu_index = 0;
  slice.mig_profile = "1g.6gb";
  slice.mig_instance_id = 3;
  slice.host = "node-a";
  const std::vector<core::DeviceInfo> devices{whole, slice};
  const std::vector<core::KernelRecord> no_kernels;
  ReportBuilder builder(devices, no_kernels);
  for (std::uint32_t d = 0; d < 2; ++d) {
    builder.add(testing::sample(d, 0, 100, Load{.bound = core::Bound::Compute, .compute = 50.0}));
  }
  const Report report = builder.finish(TraceFacts{.path = "mig.sqlite"});
  const std::string text = render_text(report);
  EXPECT_NE(text.find("\nGPU 0  NVIDIA A30  source "), std::string::npos) << text;
  EXPECT_NE(text.find("\nGPU 0 \u00b7 MIG 1g.6gb #3  NVIDIA A30  source "), std::string::npos) << text;
  EXPECT_NE(text.find("  host          node-a\n"), std::string::npos) << text;
  const auto json = to_json(report);
  EXPECT_EQ(json["gpus"][0]["label"], "GPU 0");
  EXPECT_EQ(json["gpus"][1]["label"], "GPU 0 \u00b7 MIG 1g.6gb #3");
  EXPECT_EQ(json["gpus"][1]["gpu"], 0);
  EXPECT_EQ(json["gpus"][1]["index"], 1);
  EXPECT_EQ(json["gpus"][1]["parent_uuid"], "GPU-0");
  EXPECT_EQ(json["gpus"][1]["mig_profile"], "1g.6gb");
}

TEST(ReportText, ARunTraceNamesItsCommandAndHowItEnded) {
  Report report = sample_report();
  report.trace.command = "python train.py --steps 10";
  report.trace.exit_status = "exit 3";
  const std::string text = render_text(report);
  EXPECT_NE(text.find("\ncommand: python train.py --steps 10 (exit 3)\n"), std::string::npos) << text;
  const auto json = to_json(report);
  EXPECT_EQ(json["trace"]["command"], "python train.py --steps 10");
  EXPECT_EQ(json["trace"]["exit_status"], "exit 3");
}

}  // namespace
}  // namespace solscope::report
