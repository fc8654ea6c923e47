// What `solscope import` leaves out, and that it says so (issue 18, defects 6, 7 and 15): rows whose time
// repeats or goes back for a GPU, DCGM lines that repeat a field at one time, values outside their metric's
// range (-Inf, +Inf, negative ratios) and the shell prompt and command line above a pasted dmon capture. Each
// is counted in the recording's tally and said by import_notes, or refused; never dropped in silence, and an
// unknown value is never 0. All inputs are SYNTHETIC, written here.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/derive.hpp"
#include "imports/detail/dcgm_exporter_import.hpp"
#include "imports/detail/dcgmi_dmon.hpp"
#include "imports/detail/nvidia_smi_dmon.hpp"
#include "imports/importer.hpp"

namespace solscope::imports {
namespace {

using core::MetricId;
constexpr std::int64_t kS = 1'000'000'000;

auto timed_smi_log(std::initializer_list<int> seconds) -> std::string {
  std::string text =
      "#Date       Time        gpu    pwr  smutil\n#YYYYMMDD   HH:MM:SS    Idx      W   GPM:%\n";
  for (const int s : seconds) text += " 20250301   12:00:0" + std::to_string(s) + "      0    500     50\n";
  return text;
}

auto notes_text(const Recording& r) -> std::string {
  std::string all;
  for (const std::string& n : import_notes(r)) all += n + "\n";
  return all;
}

// --- defect 6: order and repeats -------------------------------------------------------------------------

TEST(ImportOrder, a_dmon_log_whose_time_goes_back_is_refused_not_cut_to_one_sample) {
  // Before: the ten rows going backwards imported as 1 sample with exit 0 and no word.
  const auto r = import_text(timed_smi_log({9, 8, 7, 6, 5, 4, 3, 2, 1, 0}), ImportFormat::NvidiaSmiDmon, kS);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::DataLoss);
  EXPECT_EQ(
      r.error().message,
      "GPU 0 (nvidia-smi dmon): its row 2 is 1s earlier than row 1: the time goes back, so the order of "
      "the rows cannot be trusted");
  EXPECT_NE(r.error().hint.find("cut the recording where its time goes back"), std::string::npos);
  // One step back late in a log is refused the same way.
  EXPECT_FALSE(import_text(timed_smi_log({0, 1, 2, 3, 1}), ImportFormat::NvidiaSmiDmon, kS));
}

TEST(ImportOrder, repeated_times_drop_the_later_rows_and_say_how_many) {
  const auto r = import_text(timed_smi_log({0, 1, 1, 2, 2, 2, 3}), ImportFormat::NvidiaSmiDmon, kS);
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->samples.size(), 4u);
  EXPECT_EQ(r->tally.repeated_rows, 3u);
  EXPECT_EQ(notes_text(*r),
            "3 rows dropped: the time repeats the previous row of the same GPU (the first is kept)\n");
}

TEST(ImportOrder, span_from_previous_refuses_a_step_back_and_changes_nothing) {
  Recording r;
  const std::uint32_t devices[] = {0, 1, 0, 1, 0};
  const std::int64_t ends[] = {10, 10, 12, 15, 10};  // device 0 at 10 after 12: back in time
  for (std::size_t i = 0; i < 5; ++i) {
    core::RawSample s;
    s.device_index = devices[i];
    s.t_end_ns = ends[i];
    r.samples.push_back(s);
  }
  const auto back = span_from_previous(r, 7);
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().code, core::ErrorCode::DataLoss);
  EXPECT_EQ(back.error().message,
            "device 0: its row 3 is 2ns earlier than row 2: the time goes back, so the order of the rows "
            "cannot be trusted");
  ASSERT_EQ(r.samples.size(), 5u);  // nothing changed
  EXPECT_EQ(r.samples[0].t_start_ns, 0);
  EXPECT_EQ(r.tally.repeated_rows, 0u);
}

TEST(ImportOrder, dcgm_lines_repeating_a_field_at_one_time_are_counted) {
  // Before: the second value (0.9) was dropped in silence.
  const std::string text =
      "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"0\",Hostname=\"a\"} 0.1 1735689600000\n"
      "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"0\",Hostname=\"a\"} 0.9 1735689600000\n"
      "DCGM_FI_PROF_DRAM_ACTIVE{gpu=\"0\",Hostname=\"a\",pod=\"p1\"} 0.3 1735689600000\n"
      "DCGM_FI_PROF_DRAM_ACTIVE{gpu=\"0\",Hostname=\"a\",pod=\"p2\"} 0.3 1735689600000\n"
      "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"0\",Hostname=\"a\"} 0.2 1735689601000\n";
  const auto r = import_text(text, ImportFormat::DcgmExporter, kS);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->samples.size(), 2u);
  EXPECT_DOUBLE_EQ(r->samples[0].value(MetricId::TensorPipe), 10.0);  // the first is kept
  EXPECT_EQ(r->tally.repeated_values, 1u);  // the same DRAM value per pod loses nothing: not counted
  EXPECT_EQ(notes_text(*r),
            "1 line dropped: a second, different value of a GPU's field at the same time (the first is "
            "kept)\n");
}

// --- defect 7: values outside their domain ----------------------------------------------------------------

TEST(ImportDomain, dcgm_infinities_and_negative_ratios_become_unknown_counted_never_zero) {
  // Before: -Inf gave the GPU "Compute SOL -inf %", and the ratio -1 became -100 %.
  const std::string text =
      "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"0\",Hostname=\"a\"} 0.1 1735689600000\n"
      "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"0\",Hostname=\"a\"} -Inf 1735689601000\n"
      "DCGM_FI_PROF_PIPE_FP32_ACTIVE{gpu=\"0\",Hostname=\"a\"} -1 1735689601000\n"
      "DCGM_FI_PROF_DRAM_ACTIVE{gpu=\"0\",Hostname=\"a\"} +Inf 1735689601000\n"
      "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"0\",Hostname=\"a\"} 0.3 1735689602000\n";
  const auto r = import_text(text, ImportFormat::DcgmExporter, kS);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->samples.size(), 3u);
  const core::RawSample& bad = r->samples[1];
  EXPECT_TRUE(std::isnan(bad.value(MetricId::TensorPipe)));
  EXPECT_TRUE(std::isnan(bad.value(MetricId::FmaPipe)));
  EXPECT_TRUE(std::isnan(bad.value(MetricId::DramThroughput)));
  const core::SolSample sol = core::derive(bad, r->devices.at(0));
  EXPECT_TRUE(std::isnan(sol.compute_sol_pct));  // unknown, not -inf, not 0
  EXPECT_TRUE(std::isnan(sol.memory_sol_pct));
  for (const core::RawSample& s : r->samples) {
    EXPECT_FALSE(std::isinf(core::derive(s, r->devices.at(0)).compute_sol_pct));
  }
  EXPECT_DOUBLE_EQ(r->samples[2].value(MetricId::TensorPipe), 30.0);
  EXPECT_EQ(r->tally.out_of_domain.total(), 3u);
  EXPECT_EQ(notes_text(*r),
            "3 values outside the metric's range or not a number, made unknown (never 0): tensor_pipe_pct 1, "
            "fma_pipe_pct 1, dram_pct 1\n");
}

TEST(ImportDomain, every_text_format_goes_through_the_one_check) {
  // nvidia-smi dmon: a GPM percentage of 900 and a negative power; dcgmi dmon: a ratio of -0.5.
  const auto smi =
      import_text("# gpu pwr smutil\n# Idx W GPM:%\n0 -40 900\n0 300 50\n", ImportFormat::NvidiaSmiDmon, kS);
  ASSERT_TRUE(smi) << smi.error().describe();
  EXPECT_TRUE(std::isnan(smi->samples[0].value(MetricId::SmActive)));
  EXPECT_TRUE(std::isnan(smi->samples[0].value(MetricId::PowerW)));
  EXPECT_DOUBLE_EQ(smi->samples[1].value(MetricId::SmActive), 50.0);
  EXPECT_EQ(smi->tally.out_of_domain.describe(), "sm_active_pct 1, power_w 1");
  const auto dmon = import_text("#Entity TENSO\nID\nGPU 0 -0.5\nGPU 0 0.5\n", ImportFormat::DcgmiDmon, kS);
  ASSERT_TRUE(dmon) << dmon.error().describe();
  EXPECT_TRUE(std::isnan(dmon->samples[0].value(MetricId::TensorPipe)));
  EXPECT_DOUBLE_EQ(dmon->samples[1].value(MetricId::TensorPipe), 50.0);
  EXPECT_EQ(dmon->tally.out_of_domain.count(MetricId::TensorPipe), 1u);
  // Counter skew inside the stated tolerance is a measurement, kept raw (not clamped).
  const auto skew = import_text("#Entity TENSO\nID\nGPU 0 1.02\n", ImportFormat::DcgmiDmon, kS);
  ASSERT_TRUE(skew);
  EXPECT_DOUBLE_EQ(skew->samples[0].value(MetricId::TensorPipe), 102.0);
  EXPECT_TRUE(import_notes(*skew).empty());
}

// --- defect 15: what people paste ----------------------------------------------------------------------

TEST(ImportPaste, a_dmon_capture_with_the_prompt_and_command_line_above_its_header_imports) {
  // Before: "line 1: a row before the two header lines (names, then units)", exit 5.
  const std::string smi =
      "user@node:~$ nvidia-smi dmon --gpm-metrics 1,2 -c 2\n"
      "nvidia-smi dmon --gpm-metrics 1,2 -c 2\n"
      "# gpu    pwr  gract smutil\n"
      "# Idx      W  GPM:%  GPM:%\n"
      "    0    100     50     40\n"
      "    0    100     60     45\n";
  EXPECT_EQ(detect_format(smi, ""), ImportFormat::NvidiaSmiDmon);
  const auto r = import_text(smi, ImportFormat::NvidiaSmiDmon, kS);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->samples.size(), 2u);
  EXPECT_DOUBLE_EQ(r->samples[1].value(MetricId::SmActive), 45.0);
  EXPECT_EQ(r->tally.lines_above_header, 2u);
  EXPECT_EQ(notes_text(*r),
            "2 lines above the first header skipped (a shell prompt or the command line, not data)\n");
  // Before: "line 1: a row before the \"#Entity\" header", exit 5.
  const std::string dcgmi =
      "[root@node ~]$ dcgmi dmon -e 1001,1004 -c 1\n#Entity   GRACT  TENSO\nID\nGPU 0     0.500  0.100\n";
  EXPECT_EQ(detect_format(dcgmi, ""), ImportFormat::DcgmiDmon);
  const auto d = import_text(dcgmi, ImportFormat::DcgmiDmon, kS);
  ASSERT_TRUE(d) << d.error().describe();
  ASSERT_EQ(d->samples.size(), 1u);
  EXPECT_DOUBLE_EQ(d->samples[0].value(MetricId::TensorPipe), 10.0);
  EXPECT_EQ(d->tally.lines_above_header, 1u);
  // Only lines above the first header are skipped: a bad row under it still stops the import.
  const auto late = import_text(dcgmi + "oops\n", ImportFormat::DcgmiDmon, kS);
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, core::ErrorCode::DataLoss);
}

}  // namespace
}  // namespace solscope::imports
