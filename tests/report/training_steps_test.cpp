// The report's Training steps (docs/report.md "Training steps") on the SYNTHETIC 4-rank data-parallel step
// (tests/data/synthetic/dp_step_scenario.md), built here from its text: exact iterations, percentiles,
// exposed communication, the median iteration's strip, the straggler; the text and JSON forms; the form from
// samples alone; and a kernel log with no repeat.
#include <array>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/metric_id.hpp"
#include "data/synthetic/dp_step.hpp"
#include "report/detail/training_steps_build.hpp"
#include "report/report_builder.hpp"
#include "report/report_json.hpp"
#include "report/report_test_support.hpp"
#include "report/report_text.hpp"

namespace solscope::report {
namespace {

// --- the scenario: tests/data/synthetic/dp_step_scenario.md, built by synthetic::dp_step() ---
constexpr std::int64_t kT0 = synthetic::kDpStepStartNs;
constexpr std::int64_t kUs = 1'000;
constexpr std::int64_t kPeriodUs = synthetic::kDpStepPeriodNs / kUs;
constexpr std::uint32_t kRanks = synthetic::kDpStepRanks;

auto step_ns(int step) -> std::int64_t {
  return kT0 + step * synthetic::kDpStepPeriodNs;
}

/// 60 samples of 10 ms per device from T0 (their figures do not matter to the kernel log's iterations).
void add_samples(ReportBuilder& builder) {
  for (std::uint32_t r = 0; r < kRanks; ++r) {
    for (int s = 0; s < 60; ++s) {
      core::SolSample sample =
          testing::sample(r, 0, 10, testing::Load{.bound = core::Bound::Compute, .compute = 60.0});
      sample.t_start_ns = kT0 + s * 10 * testing::kMs;
      sample.t_end_ns = sample.t_start_ns + 10 * testing::kMs;
      builder.add(sample);
    }
  }
}

auto devices() -> std::vector<core::DeviceInfo> {
  std::vector<core::DeviceInfo> out(kRanks);
  for (std::uint32_t d = 0; d < kRanks; ++d) out[d].index = d;
  return out;
}

auto dp_report(bool with_markers = true) -> Report {
  const auto devs = devices();
  const synthetic::DpStep scenario = synthetic::dp_step();
  const auto kernels = scenario.all_kernels();
  ReportBuilder builder(devs, kernels);
  if (with_markers) builder.set_markers(scenario.markers, true);
  add_samples(builder);
  return builder.finish(TraceFacts{.path = "dp.sqlite", .synthetic = true, .kernel_log = "synthetic"});
}

struct Expected {
  std::int64_t compute_us, communication_us, exposed_us;
};
constexpr std::array<Expected, kRanks> kExpected{
    {{76'125, 28'500, 14'275}, {76'250, 28'250, 14'150}, {82'400, 15'950, 8'000}, {76'000, 28'750, 14'400}}};

void expect_scenario_iterations(const TrainingSteps& steps, core::StepBoundary boundary) {
  ASSERT_EQ(steps.gpus.size(), 4U);
  for (std::size_t r = 0; r < kRanks; ++r) {
    const GpuSteps& g = steps.gpus[r];
    SCOPED_TRACE(g.label);
    EXPECT_EQ(g.device, r);
    EXPECT_EQ(g.label, "GPU " + std::to_string(r));
    EXPECT_EQ(g.source, StepSource::KernelLog);
    EXPECT_EQ(g.boundary, boundary);
    ASSERT_EQ(g.iteration_count, 5U);
    ASSERT_EQ(g.iterations.size(), 5U);
    const Expected& e = kExpected[r];
    for (std::size_t i = 0; i < 5; ++i) {
      const auto& it = g.iterations[i];
      EXPECT_EQ(it.start_ns, step_ns(static_cast<int>(i)));
      EXPECT_EQ(it.end_ns, step_ns(static_cast<int>(i) + 1));
      EXPECT_EQ(it.compute_ns, e.compute_us * kUs);
      EXPECT_EQ(it.communication_ns, e.communication_us * kUs);
      EXPECT_EQ(it.exposed_communication_ns, e.exposed_us * kUs);
    }
    EXPECT_EQ(g.iteration.p50_ms, 100.0);
    EXPECT_EQ(g.iteration.p90_ms, 100.0);
    EXPECT_EQ(g.iteration.p99_ms, 100.0);
    EXPECT_EQ(g.iteration.mean_ms, 100.0);
    EXPECT_EQ(g.iteration.share_pct, 100.0);
    EXPECT_DOUBLE_EQ(g.compute.p50_ms, static_cast<double>(e.compute_us) / 1e3);
    EXPECT_DOUBLE_EQ(g.compute.p99_ms, static_cast<double>(e.compute_us) / 1e3);
    EXPECT_DOUBLE_EQ(g.compute.share_pct, static_cast<double>(e.compute_us) / 1e3);  // of 100 ms
    EXPECT_DOUBLE_EQ(g.communication.p90_ms, static_cast<double>(e.communication_us) / 1e3);
    EXPECT_DOUBLE_EQ(g.communication.share_pct, static_cast<double>(e.communication_us) / 1e3);
    EXPECT_DOUBLE_EQ(g.exposed.mean_ms, static_cast<double>(e.exposed_us) / 1e3);
    EXPECT_DOUBLE_EQ(g.exposed.share_pct, static_cast<double>(e.exposed_us) / 1e3);
    EXPECT_DOUBLE_EQ(g.collective_pct[static_cast<std::size_t>(core::Collective::AllReduce)], 100.0);
    EXPECT_EQ(g.collective_pct[static_cast<std::size_t>(core::Collective::AllGather)], 0.0);
    EXPECT_EQ(g.median_iteration, 0U);
    EXPECT_EQ(g.median_length_ns, kPeriodUs * kUs);
    EXPECT_EQ(g.kernels_used, 36U);
    EXPECT_EQ(g.kernels_left, 0U);
  }
  ASSERT_EQ(steps.ranks.size(), 4U);
  EXPECT_EQ(steps.rank_source, StepSource::KernelLog);
  EXPECT_EQ(steps.rank_devices, (std::vector<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_DOUBLE_EQ(steps.ranks[2].compute_s, 0.0824);
  EXPECT_DOUBLE_EQ(steps.ranks[0].exposed_communication_s, 0.014275);
  ASSERT_TRUE(steps.verdict.has_value());
  EXPECT_EQ(steps.verdict->straggler, 2U);
  EXPECT_NEAR(steps.verdict->spread_pct, (82'400.0 - 76'187.5) / 76'187.5 * 100.0, 1e-9);
  EXPECT_NEAR(steps.verdict->spread_pct, 8.15422, 1e-5);
  EXPECT_EQ(steps.verdict->iteration_spread_pct, 0.0);
}

TEST(TrainingSteps, TheDataParallelStepFromNvtxRanges) {
  const Report report = dp_report();
  EXPECT_TRUE(report.training_steps.markers_recorded);
  EXPECT_EQ(report.training_steps.markers, 72U);
  expect_scenario_iterations(report.training_steps, core::StepBoundary::Nvtx);
  for (const auto& g : report.training_steps.gpus) EXPECT_EQ(g.nvtx_range, "train_step");
}

TEST(TrainingSteps, TheDataParallelStepFromTheKernelSequence) {
  const Report report = dp_report(/*with_markers=*/false);
  EXPECT_FALSE(report.training_steps.markers_recorded);
  expect_scenario_iterations(report.training_steps, core::StepBoundary::KernelSequence);
}

// The median iteration of rank 0, us from its start: forward and backward [0, 50,175), bucket 1 under
// backward 2 [50,175, 64,400), backward 2 alone [64,400, 70,125), bucket 2 exposed [70,125, 84,400), the
// optimizer [84,400, 90,400), idle to 100,000.
TEST(TrainingSteps, TheMedianIterationsStrip) {
  const Report report = dp_report();
  using K = StripKind;
  const std::vector<std::tuple<std::int64_t, std::int64_t, K>> rank0{
      {0, 50'175, K::Compute},      {50'175, 64'400, K::Overlapped}, {64'400, 70'125, K::Compute},
      {70'125, 84'400, K::Exposed}, {84'400, 90'400, K::Compute},    {90'400, 100'000, K::Idle}};
  const std::vector<std::tuple<std::int64_t, std::int64_t, K>> rank2{
      {0, 56'450, K::Compute},      {56'450, 64'400, K::Overlapped}, {64'400, 76'400, K::Compute},
      {76'400, 84'400, K::Exposed}, {84'400, 90'400, K::Compute},    {90'400, 100'000, K::Idle}};
  for (const auto& [rank, want] : {std::pair{0, rank0}, std::pair{2, rank2}}) {
    const auto& strip = report.training_steps.gpus[static_cast<std::size_t>(rank)].strip;
    ASSERT_EQ(strip.size(), want.size()) << "rank " << rank;
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(strip[i].start_ns, std::get<0>(want[i]) * kUs) << "rank " << rank << " segment " << i;
      EXPECT_EQ(strip[i].end_ns, std::get<1>(want[i]) * kUs) << "rank " << rank << " segment " << i;
      EXPECT_EQ(strip[i].kind, std::get<2>(want[i])) << "rank " << rank << " segment " << i;
    }
  }
}

TEST(TrainingSteps, TheTextSection) {
  const std::string text = render_text(dp_report());
  EXPECT_NE(text.find("\nTraining steps (docs/report.md \"Training steps\"):\n"
                      "GPU 0: 5 iterations, boundaries from the NVTX range \"train_step\"\n"
                      "                      p50 ms     p90 ms     p99 ms    mean ms   of iter.\n"
                      "  iteration          100.000    100.000    100.000    100.000    100.0 %\n"
                      "  compute             76.125     76.125     76.125     76.125     76.1 %\n"
                      "  communication       28.500     28.500     28.500     28.500     28.5 %\n"
                      "  exposed comm.       14.275     14.275     14.275     14.275     14.3 %\n"
                      "  collectives (of the communication time): all_reduce 100.0 %\n"
                      "  median iteration #1 (100.000 ms): compute alone 61.900, overlapped comm. 14.225,\n"
                      "    exposed comm. 14.275, idle 9.600 ms\n"
                      "      #    start s  length ms  compute ms    comm ms  exposed ms  kernels\n"
                      "      1      0.000    100.000      76.125     28.500      14.275        6\n"
                      "      2      0.100    100.000      76.125     28.500      14.275        6\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  exposed comm.        8.000      8.000      8.000      8.000      8.0 %\n"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("Across 4 GPUs (kernel log, medians):\n"
                "  GPU              iteration ms  compute ms    comm ms  exposed ms\n"
                "  GPU 0                 100.000      76.125     28.500      14.275\n"
                "  GPU 1                 100.000      76.250     28.250      14.150\n"
                "  GPU 2                 100.000      82.400     15.950       8.000\n"
                "  GPU 3                 100.000      76.000     28.750      14.400\n"
                "  straggler: GPU 2 (compute 8.15 % above the GPUs' median); iteration spread 0.00 %\n"),
      std::string::npos)
      << text;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) EXPECT_LE(line.size(), kTextWidth) << line;
}

TEST(TrainingSteps, TheJsonKey) {
  const auto json = to_json(dp_report());
  const auto& steps = json["training_steps"];
  EXPECT_EQ(steps["markers_recorded"], true);
  EXPECT_EQ(steps["markers"], 72);
  EXPECT_EQ(steps["rank_source"], "kernel_log");
  ASSERT_EQ(steps["gpus"].size(), 4U);
  const auto& g = steps["gpus"][0];
  EXPECT_EQ(g["index"], 0);
  EXPECT_EQ(g["label"], "GPU 0");
  EXPECT_EQ(g["source"], "kernel_log");
  EXPECT_EQ(g["boundary"], "nvtx");
  EXPECT_EQ(g["nvtx_range"], "train_step");
  EXPECT_EQ(g["iteration_count"], 5);
  EXPECT_EQ(g["iteration"]["p50_ms"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(g["compute"]["p90_ms"].get<double>(), 76.125);
  EXPECT_DOUBLE_EQ(g["communication"]["mean_ms"].get<double>(), 28.5);
  EXPECT_DOUBLE_EQ(g["exposed_communication"]["p99_ms"].get<double>(), 14.275);
  EXPECT_DOUBLE_EQ(g["exposed_communication"]["share_pct"].get<double>(), 14.275);
  EXPECT_DOUBLE_EQ(g["collectives_pct"]["all_reduce"].get<double>(), 100.0);
  EXPECT_EQ(g["collectives_pct"].size(), 1U);
  EXPECT_EQ(g["median_iteration"], 0);
  ASSERT_EQ(g["strip"].size(), 6U);
  EXPECT_DOUBLE_EQ(g["strip"][3]["start_ms"].get<double>(), 70.125);
  EXPECT_DOUBLE_EQ(g["strip"][3]["end_ms"].get<double>(), 84.4);
  EXPECT_EQ(g["strip"][3]["kind"], "exposed_communication");
  EXPECT_EQ(g["strip"][1]["kind"], "overlapped_communication");
  ASSERT_EQ(g["iterations"].size(), 5U);
  EXPECT_EQ(g["iterations"][1]["start_ns"].get<std::int64_t>(), step_ns(1));
  EXPECT_DOUBLE_EQ(g["iterations"][1]["exposed_communication_ms"].get<double>(), 14.275);
  EXPECT_DOUBLE_EQ(g["iterations"][1]["collectives_ms"]["all_reduce"].get<double>(), 28.5);
  EXPECT_TRUE(g["from_samples"].is_null());
  ASSERT_EQ(steps["ranks"].size(), 4U);
  EXPECT_DOUBLE_EQ(steps["ranks"][2]["compute_ms"].get<double>(), 82.4);
  EXPECT_EQ(steps["straggler"]["index"], 2);
  EXPECT_EQ(steps["straggler"]["label"], "GPU 2");
  EXPECT_NEAR(steps["straggler"]["spread_pct"].get<double>(), 8.15422, 1e-5);
  EXPECT_EQ(steps["straggler"]["iteration_spread_pct"].get<double>(), 0.0);
}

/// One device's samples over `seconds` at 10 ms: with `periodic`, 100 ms iterations of 60 ms compute (SM
/// active 90 %) then 40 ms of all-reduce (NVLink busy, SMs idle); else the same flat load throughout.
void add_square_wave(ReportBuilder& builder, int seconds, bool periodic) {
  for (int s = 0; s < seconds * 100; ++s) {
    const bool compute = !periodic || s % 10 < 6;
    core::SolSample sample =
        testing::sample(0, s * 10, 10,
                        testing::Load{.bound = compute ? core::Bound::Compute : core::Bound::Latency,
                                      .compute = compute ? 80.0 : 2.0,
                                      .util = 100.0,
                                      .sm_active = compute ? 90.0 : 5.0});
    const double link = periodic && !compute ? 100e9 : 0.0;
    sample.metrics[core::index_of(core::MetricId::NvlinkRxBytesPerS)] = link;
    sample.metrics[core::index_of(core::MetricId::NvlinkTxBytesPerS)] = link;
    builder.add(sample);
  }
}

TEST(TrainingSteps, WithoutAKernelLogTheSamplesGiveTheIteration) {
  const auto devs = std::vector<core::DeviceInfo>(1);
  ReportBuilder builder(devs);
  add_square_wave(builder, 3, /*periodic=*/true);
  const Report report = builder.finish(TraceFacts{.path = "periodic.sqlite"});
  ASSERT_EQ(report.training_steps.gpus.size(), 1U);
  const GpuSteps& g = report.training_steps.gpus[0];
  EXPECT_EQ(g.source, StepSource::Samples);
  EXPECT_EQ(g.windows, 1U);
  ASSERT_TRUE(g.estimate.periodic) << g.estimate.note;
  EXPECT_EQ(g.periodic_windows, 1U);
  EXPECT_NEAR(g.estimate.period_s, 0.1, 0.002);  // within 2 % (issue 25)
  EXPECT_TRUE(g.iterations.empty());
  const std::string text = render_text(report);
  EXPECT_NE(text.find("\nGPU 0: from samples: period "), std::string::npos) << text;
  EXPECT_NE(text.find("(1 of 1 windows periodic)\n  one iteration: compute "), std::string::npos) << text;
  const auto json = to_json(report);
  const auto& from = json["training_steps"]["gpus"][0]["from_samples"];
  EXPECT_EQ(from["periodic"], true);
  EXPECT_NEAR(from["period_ms"].get<double>(), 100.0, 2.0);
  EXPECT_EQ(json["training_steps"]["gpus"][0]["source"], "samples");
  EXPECT_TRUE(json["training_steps"]["straggler"].is_null()) << "one GPU: no straggler";
}

TEST(TrainingSteps, AFlatLoadIsNotPeriodic) {
  const auto devs = std::vector<core::DeviceInfo>(1);
  ReportBuilder builder(devs);
  add_square_wave(builder, 3, /*periodic=*/false);
  const Report report = builder.finish(TraceFacts{.path = "flat.sqlite"});
  const GpuSteps& g = report.training_steps.gpus[0];
  EXPECT_EQ(g.source, StepSource::Samples);
  EXPECT_FALSE(g.estimate.periodic);
  EXPECT_EQ(g.periodic_windows, 0U);
  const std::string text = render_text(report);
  EXPECT_NE(text.find("\nGPU 0: from samples: not periodic ("), std::string::npos) << text;
  EXPECT_NE(text.find("; 0 of 1 windows periodic)\n"), std::string::npos) << text;
  EXPECT_EQ(to_json(report)["training_steps"]["gpus"][0]["from_samples"]["periodic"], false);
}

// Kernels that never repeat: no iterations, and the report says why (kernel_steps' note).
TEST(TrainingSteps, AKernelLogWithoutARepeatSaysWhy) {
  std::vector<core::KernelRecord> kernels;
  for (int i = 0; i < 8; ++i) {
    core::KernelRecord k;
    k.start_ns = kT0 + i * 1'000 * kUs;
    k.end_ns = k.start_ns + 500 * kUs;
    k.name = "kernel_" + std::to_string(i);
    kernels.push_back(k);
  }
  const auto devs = std::vector<core::DeviceInfo>(1);
  ReportBuilder builder(devs, kernels);
  const Report report = builder.finish(TraceFacts{.path = "once.sqlite", .kernel_log = "synthetic"});
  const GpuSteps& g = report.training_steps.gpus[0];
  EXPECT_EQ(g.source, StepSource::None);
  EXPECT_EQ(g.iteration_count, 0U);
  EXPECT_FALSE(g.note.empty());
  EXPECT_TRUE(report.training_steps.ranks.empty());
  const std::string text = render_text(report);
  EXPECT_NE(text.find("\nGPU 0: no iterations in the kernel log: " + g.note.substr(0, 20)), std::string::npos)
      << text;
  const auto json = to_json(report);
  EXPECT_EQ(json["training_steps"]["gpus"][0]["source"], "none");
  EXPECT_EQ(json["training_steps"]["gpus"][0]["note"], g.note);
  EXPECT_TRUE(json["training_steps"]["rank_source"].is_null());
}

TEST(TrainingStepsFigures, PercentilesInterpolateLinearly) {
  // 1..10 ms: p50 = 5.5, p90 = 9.1, p99 = 9.91 (numpy's default), mean 5.5; share of 110 ms: 50 %.
  std::vector<std::int64_t> values;
  for (std::int64_t v = 10; v >= 1; --v) values.push_back(v * 1'000'000);
  const StepStat s = step_stat(values, 110'000'000);
  EXPECT_DOUBLE_EQ(s.p50_ms, 5.5);
  EXPECT_DOUBLE_EQ(s.p90_ms, 9.1);
  EXPECT_DOUBLE_EQ(s.p99_ms, 9.91);
  EXPECT_DOUBLE_EQ(s.mean_ms, 5.5);
  EXPECT_DOUBLE_EQ(s.share_pct, 50.0);
  EXPECT_TRUE(std::isnan(step_stat({}, 0).p50_ms));
}

TEST(TrainingStepsFigures, TheMedianIterationIsTheLowerMedianEarliestOnATie) {
  std::vector<core::KernelIteration> its(4);
  const std::array<std::int64_t, 4> lengths{30, 10, 20, 20};
  for (std::size_t i = 0; i < 4; ++i) its[i].end_ns = lengths[i];
  EXPECT_EQ(median_iteration(its), 2U);  // sorted 10, 20, 20, 30: the lower median 20, first at index 2
}

TEST(TrainingStepsFigures, ALongStripIsFoldedIntoBins) {
  // 1,000 kernels of 50 ns every 100 ns: 2,000 segments, folded into kMaxStripSegments bins.
  core::KernelIteration it{.start_ns = 0, .end_ns = 100'000};
  std::vector<core::KernelRecord> kernels(1000);
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    kernels[i].start_ns = static_cast<std::int64_t>(i) * 100;
    kernels[i].end_ns = kernels[i].start_ns + 60;  // compute holds most of each bin
    kernels[i].name = "gemm";
  }
  const auto strip = iteration_strip(it, kernels);
  ASSERT_EQ(strip.size(), 1U);  // every bin is mostly compute: one merged segment
  EXPECT_EQ(strip[0].kind, StripKind::Compute);
  EXPECT_EQ(strip[0].end_ns, 100'000);
}

}  // namespace
}  // namespace solscope::report
