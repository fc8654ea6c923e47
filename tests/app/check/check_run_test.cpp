// `solscope check` end to end against fakes (issue 11, item 6): phases, the table, JSON, exit codes, ramp
// edges, faults, sources the GPU cannot give, and the overhead ratios. Every figure is synthetic.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "check/run/check_render.hpp"
#include "check_fakes.hpp"
#include "cli/check/check_command.hpp"
#include "runtime/exit_codes.hpp"
#include "trace/reader.hpp"

namespace solscope::app {
namespace {

using check::PhaseKind;
using core::MetricId;
using core::SourceKind;
using testing::kMs;

constexpr check::KernelSpec kIdle{.phase = PhaseKind::Idle, .name = "idle"};
constexpr check::KernelSpec kKernels[] = {
    {.phase = PhaseKind::Fma, .name = "fma", .entry = "fma", .ptx = "synthetic"},
    {.phase = PhaseKind::Alu, .name = "alu", .entry = "alu", .ptx = "synthetic"},
    {.phase = PhaseKind::TensorWgmma,
     .name = "wgmma",
     .entry = "wgmma",
     .ptx = "synthetic",
     .min_compute_capability = 90,
     .max_compute_capability = 90},
    {.phase = PhaseKind::DramCopy, .name = "dram_copy", .entry = "copy", .ptx = "synthetic"},
};

/// The test's expected figures per kernel (the real ones come from src/check; these are chosen).
auto figures_of(std::string_view kernel) -> std::vector<check::ExpectedFigure> {
  if (kernel == "idle") return {{MetricId::SmActive, 0.0, 3.0, "idle"}};
  if (kernel == "fma")
    return {{MetricId::FmaPipe, 90.0, 3.0, "ffma"}, {MetricId::SmActive, 95.0, 3.0, "all SMs"}};
  if (kernel == "alu") return {{MetricId::AluPipe, 70.0, 3.0, "alu"}};
  if (kernel == "dram_copy") return {{MetricId::DramThroughput, 80.0, 5.0, "bytes"}};
  return {};
}

/// Which metrics each fake source measures (NaN otherwise).
auto measures(SourceKind source, MetricId metric) -> bool {
  if (metric == MetricId::SmClockMhz || metric == MetricId::GpuUtil) return true;
  if (source == SourceKind::PmSampling) return true;
  if (source == SourceKind::Gpm) return metric != MetricId::AluPipe;
  return false;
}

struct CheckFixture : ::testing::Test {
  testing::FakeTimeline timeline;
  std::shared_ptr<testing::FakeRunner> runner = std::make_shared<testing::FakeRunner>(timeline);
  std::vector<check::PhaseMeasurement> measured;  ///< what expected_figures() was given, per call
  std::map<std::pair<std::string, MetricId>, double> offsets;  ///< measured = expected + offset
  bool wild_edges = false;  ///< samples in the first and last 100 ms of a run read 1000%
  bool pm_denied = false;
  bool pm_busy = false;  ///< another profiler holds the counters
  bool mig = false;
  std::vector<sources::SourceConfig> started;
  CommonOptions common;
  CheckArgs args;

  auto figure(const std::string& kernel, MetricId metric, SourceKind source, std::int64_t t) -> double {
    if (!measures(source, metric)) return core::kUnknown;
    if (metric == MetricId::SmClockMhz) return source == SourceKind::NvmlOnly ? 1400.0 : 1350.0;
    if (wild_edges && !kernel.empty()) {
      const auto* w = timeline.window_at(t);
      if (t - w->start_ns < 100 * kMs || w->end_ns - t <= 100 * kMs) return 1000.0;
    }
    for (const auto& f : figures_of(kernel.empty() ? "idle" : kernel)) {
      if (f.metric != metric) continue;
      const auto it = offsets.find({kernel.empty() ? "idle" : kernel, metric});
      return f.expected_pct + (it == offsets.end() ? 0.0 : it->second);
    }
    return 0.0;
  }

  auto deps() -> CheckDeps {
    CheckDeps d;
    d.probe = [this]() -> core::Result<GpuProbe> {
      GpuProbe p;
      p.vendor = "NVIDIA";
      p.profiling_allowed = pm_denied ? "no" : "yes";
      GpuProbeDevice dev;
      dev.info.index = 0;
      dev.info.name = "Fake GPU (synthetic)";
      dev.mig_enabled = mig;
      p.devices.push_back(dev);
      return p;
    };
    d.make_runner = [this](const core::DeviceInfo&) -> core::Result<std::unique_ptr<check::KernelRunner>> {
      struct Shared : check::KernelRunner {
        std::shared_ptr<testing::FakeRunner> inner;
        auto device() const -> const check::DeviceFacts& override { return inner->device(); }
        auto load(std::span<const check::KernelSpec> k) -> core::Result<void> override {
          return inner->load(k);
        }
        auto run(const check::KernelSpec& k, const check::LaunchShape& s, std::int64_t d,
                 const std::atomic<bool>* stop) -> core::Result<check::RunResult> override {
          return inner->run(k, s, d, stop);
        }
      };
      auto shared = std::make_unique<Shared>();
      shared->inner = runner;
      return std::unique_ptr<check::KernelRunner>(std::move(shared));
    };
    d.start_source =
        [this](const sources::SourceConfig& config) -> core::Result<std::unique_ptr<sources::CounterSource>> {
      started.push_back(config);
      SourceKind kind = config.best_source;
      sources::DeviceStatus status{.source = kind, .reason = "", .hint = "", .lost = false};
      if (kind == SourceKind::PmSampling && pm_busy) {
        kind = SourceKind::Gpm;
        status = {
            .source = kind,
            .reason =
                "PM sampling unavailable: counters held by another profiler (DCGM, Nsight, another "
                "solscope)",
            .hint = "stop the other profiler (`dcgmi profile --pause` pauses DCGM profiling; close Nsight)",
            .lost = false};
      }
      if (kind == SourceKind::PmSampling && pm_denied) {
        kind = SourceKind::Gpm;
        status = {.source = kind,
                  .reason = "PM sampling denied: profiling is restricted to admin users",
                  .hint = "run as root",
                  .lost = false};
      }
      auto source = std::make_unique<testing::ReplayingSource>(
          timeline,
          [this](const std::string& k, MetricId m, SourceKind s, std::int64_t t) {
            return figure(k, m, s, t);
          },
          kind, config.interval_ns);
      source->device_status = status;
      if (auto ok = source->start(config); !ok) return core::propagate(std::move(ok));
      return std::unique_ptr<sources::CounterSource>(std::move(source));
    };
    d.catalog.kernels = kKernels;
    d.catalog.idle = &kIdle;
    d.catalog.runs_on = [](const check::KernelSpec& k, const check::DeviceFacts& f) {
      return f.compute_capability >= k.min_compute_capability &&
             f.compute_capability <= k.max_compute_capability;
    };
    d.catalog.shape = [](const check::KernelSpec&, const check::DeviceFacts& f, std::int64_t) {
      return check::LaunchShape{.grid_blocks = f.sm_count, .block_threads = 256, .iterations = 1000};
    };
    d.catalog.expected =
        [this](const check::KernelSpec& k, const check::DeviceFacts&,
               const check::PhaseMeasurement& m) -> core::Result<std::vector<check::ExpectedFigure>> {
      measured.push_back(m);
      return figures_of(k.name);
    };
    d.clock = timeline.clock();
    return d;
  }

  struct Outcome {
    int code;
    std::string out, err;
  };
  auto run() -> Outcome {
    std::ostringstream out, err;
    const std::atomic<bool> stop{false};
    const int code = run_check_with(common, args, deps(), stop, out, err);
    return {code, out.str(), err.str()};
  }
};

TEST_F(CheckFixture, all_pass_exits_0_with_the_exact_table) {
  args.source = "pm";
  args.no_overhead = true;
  const auto r = run();
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.out,
            "GPU 0  Fake GPU (synthetic)  source pm_sampling\n"
            "  phase          metric            expected  measured    diff   tol samples  result\n"
            "  idle           sm_active             0.0%      0.0%    +0.0   3.0     180  PASS\n"
            "  fma            fma_pipe             90.0%     90.0%    +0.0   3.0     180  PASS\n"
            "  fma            sm_active            95.0%     95.0%    +0.0   3.0     180  PASS\n"
            "  alu            alu_pipe             70.0%     70.0%    +0.0   3.0     180  PASS\n"
            "  dram_copy      dram                 80.0%     80.0%    +0.0   5.0     180  PASS\n"
            "\n"
            "note: GPU 0: wgmma: not run: needs compute capability 90 to 90 (this GPU: 80)\n"
            "check: 5 of 5 passed, 0 failed\n");
  EXPECT_EQ(runner->ran, (std::vector<std::string>{"fma", "alu", "dram_copy"}));
  ASSERT_EQ(measured.size(), 4u);
  EXPECT_EQ(measured[1].launches, 2000u) << "2 s of 1 ms launches";
  EXPECT_EQ(measured[1].gpu_elapsed_ns, 2'000'000'000);
  EXPECT_DOUBLE_EQ(measured[1].sm_clock_mhz, 1350.0) << "the SM clock's phase mean";
  EXPECT_DOUBLE_EQ(measured[1].dram_peak_bytes_per_s, 1.5e12);
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].interval_ns, 10 * kMs);
  EXPECT_EQ(started[0].best_source, SourceKind::PmSampling);
}

TEST_F(CheckFixture, the_real_catalog_runs_every_phase_an_a100_can_in_order) {
  args.source = "pm";
  args.no_overhead = true;
  common.json = true;
  auto d = deps();
  d.catalog = default_check_catalog();  // src/check's kernels, launch shapes and expected figures
  std::ostringstream out, err;
  const std::atomic<bool> stop{false};
  // The fake measures what figures_of() names for the test's kernels and 0 elsewhere: most rows fail.
  EXPECT_EQ(run_check_with(common, args, std::move(d), stop, out, err), kExitCheckFailed) << err.str();
  EXPECT_EQ(runner->ran, (std::vector<std::string>{"fma", "mma_bf16", "alu", "dfma", "dram_copy", "l2_copy",
                                                   "launch_bound", "fma_half_sms"}))
      << "GA100 (cc 8.0, fast FP64): every phase but wgmma";
  const auto j = nlohmann::json::parse(out.str());
  ASSERT_EQ(j["checks"].size(), 1u);
  const auto& rows = j["checks"][0]["rows"];
  std::vector<std::string> phases;
  std::map<std::string, nlohmann::json> by_key;
  for (const auto& row : rows) {
    const std::string phase = row["phase"];
    if (phases.empty() || phases.back() != phase) phases.push_back(phase);
    by_key[phase + " " + row["metric"].get<std::string>()] = row;
  }
  EXPECT_EQ(phases, (std::vector<std::string>{"idle", "fma", "mma_bf16", "alu", "dfma", "dram_copy",
                                              "l2_copy", "launch_bound", "fma_half_sms"}));
  EXPECT_EQ(rows.size(), 28u)
      << "idle 5 rows, every other phase 3 (its pipe or DRAM, SM active, utilisation)";
  // Launches sized for 10 ms at the assumed 1500 MHz (no max clock known) take 1 ms of fake time each, and
  // the phase's SM clock reads 1350 MHz: 100 x (2000 x 10 ms / 2 s) x 1500 / 1350 = 1111.1% (7324 whole
  // iterations of the 7324.2 that 10 ms needs: 1111.08%).
  EXPECT_NEAR(by_key["fma fma_pipe_pct"]["expected_pct"].get<double>(), 1111.08, 0.01);
  EXPECT_NEAR(by_key["fma_half_sms fma_pipe_pct"]["expected_pct"].get<double>(), 555.54, 0.01);
  EXPECT_DOUBLE_EQ(by_key["fma_half_sms sm_active_pct"]["expected_pct"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(by_key["fma sm_active_pct"]["expected_pct"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(by_key["l2_copy dram_pct"]["expected_pct"].get<double>(), 0.0);
  EXPECT_EQ(by_key["launch_bound sm_active_pct"]["bound"], "at_most");
  EXPECT_DOUBLE_EQ(by_key["launch_bound sm_active_pct"]["expected_pct"].get<double>(), 100.0 / 108.0);
  EXPECT_EQ(by_key["launch_bound sm_active_pct"]["result"], "PASS");
  EXPECT_EQ(by_key["launch_bound gpu_util_pct"]["bound"], "at_least");
  EXPECT_DOUBLE_EQ(by_key["launch_bound gpu_util_pct"]["expected_pct"].get<double>(), 50.0);
  EXPECT_EQ(j["notes"][0], "GPU 0: wgmma_bf16: not run: needs compute capability 90 to 90 (this GPU: 80)");
}

TEST_F(CheckFixture, a_metric_off_by_4_points_fails_with_exit_6) {
  args.source = "pm";
  args.no_overhead = true;
  offsets[{"fma", MetricId::FmaPipe}] = 4.0;
  offsets[{"dram_copy", MetricId::DramThroughput}] = -4.0;  // inside DRAM's ±5
  const auto r = run();
  EXPECT_EQ(r.code, kExitCheckFailed);
  EXPECT_NE(r.out.find("  fma            fma_pipe             90.0%     94.0%    +4.0   3.0     180  FAIL\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  dram_copy      dram                 80.0%     76.0%    -4.0   5.0     180  PASS\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("check: 4 of 5 passed, 1 failed\n"), std::string::npos);
}

TEST_F(CheckFixture, a_faulting_phase_is_reported_and_the_others_are_still_checked) {
  args.source = "pm";
  args.no_overhead = true;
  runner->faulting = {"alu"};
  const auto r = run();
  EXPECT_EQ(r.code, kExitCheckFailed);
  EXPECT_NE(r.out.find("  alu            FAULT: CUDA_ERROR_ILLEGAL_ADDRESS in alu"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  dram_copy      dram                 80.0%     80.0%    +0.0   5.0     180  PASS\n"),
            std::string::npos);
  EXPECT_EQ(runner->ran, (std::vector<std::string>{"fma", "alu", "dram_copy"}));
  EXPECT_NE(r.out.find("check: 4 of 5 passed, 1 failed\n"), std::string::npos);
}

TEST_F(CheckFixture, json_has_every_field_and_value) {
  args.source = "pm";
  args.no_overhead = true;
  common.json = true;
  offsets[{"fma", MetricId::SmActive}] = -1.5;
  const auto r = run();
  EXPECT_EQ(r.code, kExitOk) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["result"], "pass");
  EXPECT_EQ(j["passed"], 5);
  EXPECT_EQ(j["failed"], 0);
  ASSERT_EQ(j["checks"].size(), 1u);
  const auto& c = j["checks"][0];
  EXPECT_EQ(c["gpu"], 0);
  EXPECT_EQ(c["name"], "Fake GPU (synthetic)");
  EXPECT_EQ(c["source"], "pm_sampling");
  ASSERT_EQ(c["rows"].size(), 5u);
  const auto& row = c["rows"][2];
  EXPECT_EQ(row["phase"], "fma");
  EXPECT_EQ(row["metric"], "sm_active_pct");
  EXPECT_DOUBLE_EQ(row["expected_pct"].get<double>(), 95.0);
  EXPECT_DOUBLE_EQ(row["measured_pct"].get<double>(), 93.5);
  EXPECT_DOUBLE_EQ(row["difference_pct"].get<double>(), -1.5);
  EXPECT_DOUBLE_EQ(row["tolerance_pct"].get<double>(), 3.0);
  EXPECT_EQ(row["samples"], 180);
  EXPECT_EQ(row["result"], "PASS");
  EXPECT_EQ(row["basis"], "all SMs");
  EXPECT_TRUE(j["overhead"].empty());
  EXPECT_EQ(j["notes"][0], "GPU 0: wgmma: not run: needs compute capability 90 to 90 (this GPU: 80)");
}

TEST_F(CheckFixture, json_marks_a_fault_and_the_result_fail) {
  args.source = "pm";
  args.no_overhead = true;
  common.json = true;
  runner->faulting = {"fma"};
  const auto r = run();
  EXPECT_EQ(r.code, kExitCheckFailed);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["result"], "fail");
  const auto& row = j["checks"][0]["rows"][1];
  EXPECT_EQ(row["phase"], "fma");
  EXPECT_EQ(row["result"], "FAULT");
  EXPECT_EQ(row["error"], "CUDA_ERROR_ILLEGAL_ADDRESS in fma. check dmesg for Xid errors");
}

TEST_F(CheckFixture, wild_samples_at_the_ramp_edges_do_not_change_the_mean) {
  args.source = "pm";
  args.no_overhead = true;
  wild_edges = true;
  const auto r = run();
  EXPECT_EQ(r.code, kExitOk) << r.out;
  EXPECT_NE(r.out.find("  fma            fma_pipe             90.0%     90.0%    +0.0   3.0     180  PASS\n"),
            std::string::npos)
      << r.out;
}

TEST_F(CheckFixture, without_pm_permission_gpm_and_nvml_are_checked_and_the_pm_need_is_said) {
  args.no_overhead = true;
  pm_denied = true;
  const auto r = run();
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_NE(
      r.out.find("note: GPU 0: pm_sampling checks not run: PM sampling denied: profiling is restricted to "
                 "admin users.\n      Needs: run as root\n"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("solscope: GPU 0: pm_sampling checks not run: PM sampling denied"), std::string::npos);
  EXPECT_EQ(r.out.find("source pm_sampling"), std::string::npos);
  EXPECT_NE(r.out.find("GPU 0  Fake GPU (synthetic)  source gpm\n"), std::string::npos);
  EXPECT_NE(r.out.find("  note: not measured by gpm: alu_pipe\n"), std::string::npos);
  EXPECT_NE(r.out.find("GPU 0  Fake GPU (synthetic)  source nvml\n  note: not measured"), std::string::npos)
      << "no header without rows";
  EXPECT_NE(r.out.find("  note: not measured by nvml: alu_pipe, dram, fma_pipe, sm_active\n"),
            std::string::npos);
  EXPECT_NE(r.out.find("check: 4 of 4 passed, 0 failed\n"), std::string::npos) << "GPM: idle, fma x2, dram";
  EXPECT_EQ(runner->ran.size(), 6u) << "two passes (GPM, NVML) of three kernels";
}

TEST_F(CheckFixture, counters_held_by_another_profiler_are_named_with_the_fix) {
  args.no_overhead = true;
  pm_busy = true;
  common.json = true;
  const auto r = run();
  EXPECT_EQ(r.code, kExitOk);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["checks"].size(), 2u);
  EXPECT_EQ(j["checks"][0]["source"], "gpm");
  EXPECT_EQ(j["checks"][1]["source"], "nvml");
  EXPECT_EQ(
      j["notes"][1],
      "GPU 0: pm_sampling checks not run: PM sampling unavailable: counters held by another profiler (DCGM, "
      "Nsight, another solscope). Needs: stop the other profiler (`dcgmi profile --pause` pauses DCGM "
      "profiling; close Nsight)");
}

TEST_F(CheckFixture, a_single_source_the_gpu_cannot_give_runs_on_what_it_falls_back_to) {
  args.source = "pm";
  args.no_overhead = true;
  pm_denied = true;
  const auto r = run();
  EXPECT_EQ(r.code, kExitOk);
  EXPECT_NE(r.out.find("GPU 0  Fake GPU (synthetic)  source gpm\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pm_sampling checks not run: PM sampling denied"), std::string::npos);
}

TEST_F(CheckFixture, overhead_ratios_and_clocks_come_from_interleaved_runs) {
  args.source = "pm";
  runner->launches_at = [](std::int64_t interval_ns) -> std::uint64_t {
    switch (interval_ns) {
      case 100 * kMs:
        return 990;
      case 10 * kMs:
        return 950;
      case kMs:
        return 900;
      default:
        return 1000;  // off: NVML only, at half the run's length
    }
  };
  common.json = true;
  const auto r = run();
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["overhead"].size(), 1u);
  const auto& o = j["overhead"][0];
  EXPECT_EQ(o["source"], "pm_sampling");
  ASSERT_EQ(o["rows"].size(), 8u);
  const double ratios[] = {1.0, 0.99, 0.95, 0.90};
  const std::int64_t intervals[] = {0, 100 * kMs, 10 * kMs, kMs};
  for (int i = 0; i < 8; ++i) {
    const auto& row = o["rows"][i];
    EXPECT_EQ(row["kernel"], i < 4 ? "fma" : "dram_copy");
    EXPECT_EQ(row["interval_ns"], intervals[i % 4]);
    EXPECT_EQ(row["repetitions"], 5);
    EXPECT_DOUBLE_EQ(row["launches_per_s"].get<double>(), 1000.0 * ratios[i % 4])
        << "1 s of GPU time per run";
    EXPECT_DOUBLE_EQ(row["ratio"].get<double>(), ratios[i % 4]);
    EXPECT_DOUBLE_EQ(row["sm_clock_mhz"].get<double>(), i % 4 == 0 ? 1400.0 : 1350.0);
  }
  // Interleaved: repetition after repetition of off, 100 ms, 10 ms, 1 ms, each with fma then dram_copy.
  ASSERT_EQ(runner->ran.size(), 3u + 40u);
  EXPECT_EQ(runner->ran[3], "fma");
  EXPECT_EQ(runner->ran[4], "dram_copy");
  ASSERT_EQ(started.size(), 1u + 40u);
  EXPECT_EQ(started[1].best_source, SourceKind::NvmlOnly);
  EXPECT_EQ(started[1].interval_ns, 500 * kMs) << "off: NVML only, read in the middle of the 1 s run";
  EXPECT_EQ(started[3].interval_ns, 100 * kMs);
  EXPECT_EQ(started[5].interval_ns, 10 * kMs);
  EXPECT_EQ(started[7].interval_ns, kMs);
  EXPECT_EQ(started[9].interval_ns, 500 * kMs) << "the second repetition starts";
}

TEST_F(CheckFixture, the_overhead_table_shows_ratios) {
  args.source = "pm";
  runner->launches_at = [](std::int64_t interval_ns) -> std::uint64_t {
    return interval_ns == kMs ? 800 : 1000;
  };
  const auto r = run();
  EXPECT_NE(r.out.find("GPU 0  sampling overhead (pm_sampling; runs interleaved)\n"
                       "  kernel         sampling   runs     launches/s    ratio   SM clock\n"
                       "  fma            off           5         1000.0    1.000   1400 MHz\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  fma            1 ms          5          800.0    0.800   1350 MHz\n"),
            std::string::npos);
}

TEST(CheckRenderTest, every_table_line_fits_100_columns) {
  CheckReport report;
  SourceCheck check{.device = 7, .device_name = "NVIDIA GeForce RTX 4090", .source = SourceKind::PmSampling};
  for (std::size_t m = 0; m < core::kMetricCount; ++m) {
    check.rows.push_back(CheckRow{.phase = "fma_half_sms",
                                  .metric = static_cast<MetricId>(m),
                                  .expected_pct = 100.0,
                                  .tolerance_pct = 5.0,
                                  .bound = check::Bound::AtLeast,
                                  .measured_pct = -1000.0,
                                  .samples = 99999,
                                  .verdict = CheckVerdict::NoData});
  }
  check.rows.push_back(CheckRow{.phase = "launch_bound",
                                .verdict = CheckVerdict::Fault,
                                .note = std::string(300, 'x') + " " + std::string(150, 'y')});
  check.notes.push_back("not measured by nvml: " + std::string(400, 'z'));
  report.checks.push_back(check);
  report.overhead.push_back(OverheadCheck{.device = 7,
                                          .source = SourceKind::Gpm,
                                          .rows = {{"dram_copy", 100 * kMs, 5, 123456789.5, 0.987, 2520.0}}});
  report.notes.assign(3, std::string(120, 'n') + " and more words to wrap over the end of the line");
  std::ostringstream out;
  render_check_table(report, out);
  std::istringstream lines(out.str());
  int count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    const bool unbreakable =
        line.find("xxxxxxxxxx") != std::string::npos || line.find("yyyyyyyyyy") != std::string::npos ||
        line.find("zzzzzzzzzz") != std::string::npos || line.find("nnnnnnnnnn") != std::string::npos;
    if (!unbreakable) {
      EXPECT_LE(line.size(), 100u) << line;
    }
  }
  EXPECT_GT(count, static_cast<int>(core::kMetricCount));
  EXPECT_NE(out.str().find(
                "  fma_half_sms   l1tex_throughput >= 100.0%  -1000.0% -1100.0   5.0   99999  NO DATA\n"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("\n  launch_bound   FAULT: " + std::string(300, 'x') +
                           "\n                        " + std::string(150, 'y') + "\n"),
            std::string::npos)
      << "a long message wraps under its text";
}

TEST_F(CheckFixture, no_driver_exits_3_with_the_usual_message) {
  std::ostringstream out, err;
  auto d = deps();
  d.probe = []() -> core::Result<GpuProbe> {
    return core::fail(core::ErrorCode::Unavailable, "no NVIDIA driver found", "install the NVIDIA driver");
  };
  const std::atomic<bool> stop{false};
  EXPECT_EQ(run_check_with(common, args, d, stop, out, err), kExitNoGpu);
  EXPECT_EQ(err.str(), "solscope: error: no NVIDIA driver found. install the NVIDIA driver\n");
  EXPECT_EQ(out.str(), "");
  EXPECT_TRUE(runner->ran.empty());
}

TEST_F(CheckFixture, a_mig_gpu_is_not_checked_and_says_why) {
  mig = true;
  const auto r = run();
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.err.find("GPU 0: not checked: MIG is enabled"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("solscope: error: no GPU could be checked. see the notes above\n"), std::string::npos);
  EXPECT_NE(r.err.find("sudo nvidia-smi -i 0 -mig 0"), std::string::npos);
  EXPECT_TRUE(runner->ran.empty());
}

TEST_F(CheckFixture, interval_and_replay_are_said_to_be_unused) {
  args.source = "pm";
  args.no_overhead = true;
  common.interval_ns = kMs;
  const auto r = run();
  EXPECT_EQ(r.code, kExitOk);
  EXPECT_EQ(
      r.err.rfind(
          "solscope: warning: check samples live GPUs at 10 ms: --interval and --replay are not used\n", 0),
      0u)
      << r.err;
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].interval_ns, 10 * kMs);
}

TEST_F(CheckFixture, a_device_index_that_does_not_exist_is_a_usage_error) {
  common.devices = {3};
  const auto r = run();
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("GPU 3 does not exist"), std::string::npos) << r.err;
}

TEST_F(CheckFixture, output_keeps_every_sample_in_a_trace) {
  args.source = "pm";
  args.no_overhead = true;
  const auto path =
      std::filesystem::temp_directory_path() / ("solscope-check-" + std::to_string(::getpid()) + ".sqlite");
  std::filesystem::remove(path);
  args.output = path.string();
  const auto r = run();
  EXPECT_EQ(r.code, kExitOk);
  // 4 phases of 2 s and 4 gaps of 0.5 s at 10 ms, all polled before the source stopped.
  EXPECT_NE(r.err.find("kept 1000 samples in " + path.string()), std::string::npos) << r.err;
  auto reader = trace::Reader::open(path);
  ASSERT_TRUE(reader) << reader.error().describe();
  const auto& entries = reader->metadata().entries;
  const auto kept = entries.find(std::string(kCheckMetaKey));
  ASSERT_NE(kept, entries.end());
  const auto j = nlohmann::json::parse(kept->second);
  EXPECT_EQ(j["passed"], 5);
  EXPECT_EQ(j["checks"][0]["rows"][1]["metric"], "fma_pipe_pct");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace solscope::app
