// Declared phases (`solscope report --phases`): the phase file's parser and PhaseJudge's verdicts on a
// SYNTHETIC series with known phases: one that must pass, and the same series judged against a wrong phase.
#include "report/declared_phases.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "report/declared_phases_present.hpp"
#include "report/report_test_support.hpp"

namespace solscope::report {
namespace {

using core::Bound;
using testing::kMs;
using testing::Load;

const Load kIdle{.bound = Bound::Idle, .compute = 0.5, .memory = 1.0, .util = 0.0, .sm_active = 0.0};
const Load kGemm{.bound = Bound::Compute, .compute = 80.0, .memory = 30.0, .util = 100.0, .sm_active = 99.0};
const Load kCopy{.bound = Bound::Memory,
                 .compute = 10.0,
                 .pipe = core::Pipe::Lsu,
                 .memory = 90.0,
                 .util = 100.0,
                 .sm_active = 99.0};
const Load kTiny{.bound = Bound::Latency, .compute = 1.0, .memory = 1.0, .util = 100.0, .sm_active = 1.0};

/// GPU 0 at 10 ms: 2 s idle, 4 s GEMM, 3 s copy, 3 s tiny kernels, 2 s idle. The SM clock is 1500 MHz and the
/// DRAM moves 3e12 bytes/s during the copy.
auto known_series() -> std::vector<core::SolSample> {
  std::vector<core::SolSample> out;
  auto add = [&out](std::int64_t from_ms, std::int64_t to_ms, const Load& load, double dram) {
    for (std::int64_t t = from_ms; t < to_ms; t += 10) {
      core::SolSample s = testing::sample(0, t, 10, load);
      s.metrics[core::index_of(core::MetricId::SmClockMhz)] = 1500.0;
      s.dram_bytes_per_s = dram;
      out.push_back(s);
    }
  };
  add(0, 2000, kIdle, 0.0);
  add(2000, 6000, kGemm, 1e12);
  add(6000, 9000, kCopy, 3e12);
  add(9000, 12000, kTiny, 1e9);
  add(12000, 14000, kIdle, 0.0);
  return out;
}

/// The phase file of that series; `gemm_bound` is what the GEMM phase claims.
auto phase_file(const std::string& gemm_bound) -> std::string {
  auto ns = [](std::int64_t ms) { return std::to_string(ms * kMs); };
  return R"({"format": "solscope-phases-1", "gpu": {"uuid": null, "name": "test"}, "phases": [
    {"name": "idle_start", "start_ns": 0, "end_ns": )" +
         ns(2000) + R"(,
     "expect": {"bound": "idle", "max_compute_sol_pct": 5, "max_memory_sol_pct": 5}},
    {"name": "gemm", "start_ns": )" +
         ns(2000) + R"(, "end_ns": )" + ns(6000) + R"(,
     "expect": {"bound": ")" +
         gemm_bound + R"(", "compute_pipe": "tensor", "min_compute_sol_pct": 50},
     "achieved": {"flop_per_s": 8.0e14, "tolerance_pct": 15}},
    {"name": "copy", "start_ns": )" +
         ns(6000) + R"(, "end_ns": )" + ns(9000) + R"(,
     "expect": {"bound": "memory", "memory_path": "dram", "min_memory_sol_pct": 50},
     "achieved": {"dram_bytes_per_s": 3.1e12}},
    {"name": "tiny", "start_ns": )" +
         ns(9000) + R"(, "end_ns": )" + ns(12000) + R"(,
     "expect": {"bound": "latency", "min_gpu_util_pct": 50, "max_compute_sol_pct": 10}, "launches": 20000},
    {"name": "decode_m1", "start_ns": )" +
         ns(12000) + R"(, "end_ns": )" + ns(14000) + R"(, "expect": {}}]})";
}

/// Dense BF16 peak of the test GPU: 1e15 FLOP/s at 1500 MHz, linear in the clock.
auto test_peak() -> TensorPeak {
  return [](double mhz) { return 1e15 * mhz / 1500.0; };
}

auto judge(const std::string& file, const std::vector<core::SolSample>& samples,
           const std::vector<core::KernelRecord>& kernels = {}) -> DeclaredPhaseReport {
  auto declared = parse_declared_phases(file);
  EXPECT_TRUE(declared.has_value()) << (declared ? "" : declared.error().message);
  PhaseJudge judge(*declared, 0, test_peak());
  for (const auto& s : samples) judge.add(s);
  for (const auto& k : kernels) judge.add(k);
  return judge.finish("phases.json");
}

TEST(DeclaredPhases, KnownPhasesPass) {
  const DeclaredPhaseReport report = judge(phase_file("compute"), known_series());
  ASSERT_EQ(report.phases.size(), 5U);
  EXPECT_EQ(report.result, Verdict::Pass);
  const PhaseOutcome& gemm = report.phases[1];
  EXPECT_EQ(gemm.result, Verdict::Pass);
  EXPECT_EQ(gemm.samples, 380U);  // 4 s less 100 ms at each edge, at 10 ms
  EXPECT_EQ(gemm.bound, Bound::Compute);
  EXPECT_DOUBLE_EQ(gemm.implied_flop_per_s, 0.8 * 1e15);
  EXPECT_EQ(gemm.checks.back().what, "flop_per_s");
  EXPECT_EQ(gemm.checks.back().result, Verdict::Pass);
  EXPECT_EQ(report.phases[4].result, Verdict::Info);  // a phase with no expectation is information only
  EXPECT_EQ(report.phases[2].checks.back().what, "dram_bytes_per_s");
  EXPECT_EQ(report.phases[2].checks.back().result, Verdict::Pass);  // 3.0e12 against 3.1e12: -3.2 %
}

TEST(DeclaredPhases, WrongPhaseFails) {
  const DeclaredPhaseReport report = judge(phase_file("memory"), known_series());
  EXPECT_EQ(report.result, Verdict::Fail);
  const PhaseOutcome& gemm = report.phases[1];
  EXPECT_EQ(gemm.result, Verdict::Fail);
  EXPECT_EQ(gemm.checks[0].what, "bound");
  EXPECT_EQ(gemm.checks[0].expected, "memory");
  EXPECT_EQ(gemm.checks[0].measured, "compute");
  EXPECT_EQ(gemm.checks[0].result, Verdict::Fail);
  EXPECT_EQ(report.phases[0].result, Verdict::Pass);  // the other phases still pass
}

TEST(DeclaredPhases, RateOutsideToleranceFailsAndUnknownPeakSkips) {
  std::string file = phase_file("compute");
  file.replace(file.find("8.0e14"), 6, "5.0e14");  // solscope says 8e14: +60 %
  const DeclaredPhaseReport off = judge(file, known_series());
  EXPECT_EQ(off.phases[1].checks.back().result, Verdict::Fail);
  EXPECT_NE(off.phases[1].checks.back().measured.find("+60.0%"), std::string::npos);

  auto declared = parse_declared_phases(file);
  ASSERT_TRUE(declared.has_value());
  PhaseJudge no_peak(*declared, 0, TensorPeak{[](double) { return core::kUnknown; }});
  for (const auto& s : known_series()) no_peak.add(s);
  const auto skipped = no_peak.finish("p");
  EXPECT_EQ(skipped.phases[1].checks.back().result, Verdict::Skip);
  EXPECT_EQ(skipped.phases[1].result,
            Verdict::Pass);  // a skipped comparison neither passes nor fails a phase
}

TEST(DeclaredPhases, NoSamplesIsNoDataAndFailsTheFile) {
  std::vector<core::SolSample> other_gpu = known_series();
  for (auto& s : other_gpu) s.device_index = 1;
  const DeclaredPhaseReport report = judge(phase_file("compute"), other_gpu);
  EXPECT_EQ(report.phases[1].samples, 0U);
  EXPECT_EQ(report.phases[1].result, Verdict::NoData);
  EXPECT_EQ(report.result, Verdict::Fail);
}

TEST(DeclaredPhases, LongestKernelOfEachPhase) {
  std::vector<core::KernelRecord> kernels;
  for (int i = 0; i < 40; ++i) {
    kernels.push_back({.device = 0,
                       .start_ns = (2000 + i * 100) * kMs,
                       .end_ns = (2000 + i * 100 + 99) * kMs,
                       .name = "sm90_xmma_gemm_bf16"});
  }
  kernels.push_back({.device = 0, .start_ns = 2500 * kMs, .end_ns = 2501 * kMs, .name = "elementwise"});
  const DeclaredPhaseReport report = judge(phase_file("compute"), known_series(), kernels);
  ASSERT_TRUE(report.phases[1].kernel.has_value());
  EXPECT_EQ(report.phases[1].kernel->name, "sm90_xmma_gemm_bf16");
  EXPECT_EQ(report.phases[1].kernel->calls, 40U);
  EXPECT_NEAR(report.phases[1].kernel->busy_pct, 99.0, 1e-9);
  EXPECT_FALSE(report.phases[0].kernel.has_value());
  const auto json = declared_phases_json(report);
  EXPECT_EQ(json["phases"][1]["kernel"]["name"], "sm90_xmma_gemm_bf16");
  EXPECT_EQ(json["phases"][1]["figures"]["bound"], "compute");
  EXPECT_TRUE(json["phases"][0]["kernel"].is_null());
  EXPECT_NE(render_declared_phases(report).find("gemm"), std::string::npos);
}

TEST(DeclaredPhases, ParserNamesWhatIsWrong) {
  const std::pair<std::string, std::string> cases[] = {
      {"not json", "is not JSON"},
      {R"({"format": "other", "phases": []})", "format"},
      {R"({"format": "solscope-phases-1", "phases": []})", "non-empty array"},
      {R"({"format": "solscope-phases-1", "phases": [{"start_ns": 1, "end_ns": 2}]})",
       "phase 1: has no name"},
      {R"({"format": "solscope-phases-1", "phases": [{"name": "a", "start_ns": 2, "end_ns": 2}]})",
       "phase 1 (a): end_ns is not after start_ns"},
      {R"({"format": "solscope-phases-1", "phases": [{"name": "a", "start_ns": "1", "end_ns": 2}]})",
       "start_ns must be an integer"},
      {R"({"format": "solscope-phases-1", "phases": [{"name": "a", "start_ns": 1, "end_ns": 2,
          "expect": {"bound": "fast"}}]})",
       "expect.bound: not a bound class"},
      {R"({"format": "solscope-phases-1", "phases": [{"name": "a", "start_ns": 1, "end_ns": 2,
          "expect": {"min_speed": 3}}]})",
       "expect.min_speed: unknown key"},
      {R"({"format": "solscope-phases-1", "phases": [{"name": "a", "start_ns": 1, "end_ns": 2,
          "expect": {"max_compute_sol_pct": -1}}]})",
       "must be 0 to 1000"},
      {R"({"format": "solscope-phases-1", "phases": [{"name": "a", "start_ns": 1, "end_ns": 2,
          "achieved": {"flop_per_s": 0}}]})",
       "achieved.flop_per_s: must be a positive number"},
  };
  for (const auto& [text, message] : cases) {
    auto parsed = parse_declared_phases(text);
    ASSERT_FALSE(parsed.has_value()) << text;
    EXPECT_NE(parsed.error().message.find(message), std::string::npos) << parsed.error().message;
  }
}

}  // namespace
}  // namespace solscope::report
