#include "server/detail/metrics.hpp"

#include <gtest/gtest.h>

#include <locale>
#include <sstream>

#include "core/text.hpp"
#include "server_test_support.hpp"

namespace solscope::server {
namespace {

using testing::lines_starting;

class MetricsTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::fill(state_, 2, 3); }
  auto render() const -> std::string {
    return render_metrics(state_, {.hostname = "node-17", .version = "0.1.0"});
  }
  core::LiveState state_;
};

TEST_F(MetricsTest, ratios_carry_the_dcgm_join_labels_and_the_setting_pipe) {
  const std::string text = render();
  const auto sol = lines_starting(text, "solscope_compute_sol_ratio{");
  ASSERT_EQ(sol.size(), 2U) << text;
  EXPECT_EQ(sol[1],
            "solscope_compute_sol_ratio{gpu=\"1\",UUID=\"GPU-SYNTHETIC-1\",modelName=\"SYNTHETIC test GPU\","
            "hostname=\"node-17\",pipe=\"tensor\"} 0.5");
  EXPECT_EQ(lines_starting(text, "solscope_pipe_utilization_ratio{gpu=\"0\"").size(), 1U);
  EXPECT_NE(text.find("solscope_sm_clock_hertz{gpu=\"0\",UUID=\"GPU-SYNTHETIC-0\",modelName=\"SYNTHETIC test "
                      "GPU\",hostname=\"node-17\"} 1500000000"),
            std::string::npos);
  EXPECT_NE(text.find("# TYPE solscope_compute_sol_ratio gauge"), std::string::npos);
}

TEST_F(MetricsTest, unknown_figures_are_left_out_never_zero) {
  const std::string text = render();
  EXPECT_EQ(text.find("pipe=\"fp64\""), std::string::npos);
  EXPECT_EQ(text.find("solscope_power_watts"), std::string::npos);
  EXPECT_EQ(text.find("solscope_attainable_compute_sol_ratio"), std::string::npos);
  EXPECT_EQ(text.find("NaN"), std::string::npos);
  EXPECT_EQ(text.find("Nan"), std::string::npos);
}

TEST_F(MetricsTest, busy_counters_give_seconds_of_activity) {
  const std::string text = render();
  // 3 s of samples at 40 % tensor on GPU 0: 1.2 busy seconds out of 3 sampled.
  const auto busy = lines_starting(text, "solscope_pipe_busy_seconds_total{gpu=\"0\"");
  ASSERT_EQ(busy.size(), 1U) << text;
  EXPECT_NE(busy[0].find("pipe=\"tensor\"} 1.2"), std::string::npos) << busy[0];
  const auto sampled = lines_starting(text, "solscope_sampled_seconds_total{gpu=\"0\"");
  ASSERT_EQ(sampled.size(), 1U);
  EXPECT_TRUE(sampled[0].ends_with("} 3") || sampled[0].find("} 3.0000") != std::string::npos ||
              sampled[0].find("} 2.9999") != std::string::npos)
      << sampled[0];
  EXPECT_NE(text.find("# TYPE solscope_samples_total counter"), std::string::npos);
  EXPECT_EQ(lines_starting(text, "solscope_samples_total{gpu=\"1\"")[0].substr(
                lines_starting(text, "solscope_samples_total{gpu=\"1\"")[0].rfind(' ') + 1),
            "30");
}

TEST_F(MetricsTest, bound_is_one_for_the_window_class_and_info_series_exist) {
  auto devices = state_.snapshot();
  ASSERT_TRUE(devices[0].latest_window);
  devices[0].latest_window->bound = core::Bound::Compute;
  devices[1].latest_window->bound = core::Bound::Unknown;
  const std::string text = render_metrics(devices, {.hostname = "node-17", .version = "0.1.0"});
  EXPECT_EQ(lines_starting(text, "solscope_bound{gpu=\"0\"").size(), 4U);
  EXPECT_EQ(lines_starting(text, "solscope_bound{gpu=\"1\"").size(), 0U);
  EXPECT_NE(text.find("bound=\"compute\"} 1"), std::string::npos);
  EXPECT_NE(text.find("bound=\"memory\"} 0"), std::string::npos);
  EXPECT_NE(text.find("solscope_build_info{version=\"0.1.0\"} 1"), std::string::npos);
  EXPECT_NE(text.find("chip=\"GH100\",pci_bus_id=\"00000000:11:00.0\",source=\"replay\"} 1"),
            std::string::npos);
}

// Issue 23: the pause is a state set, one series per reason with 1 for the current one (all 0 while PM
// sampling runs, never a reason="none" series), and the paused seconds are counted per reason from 0, so
// that both exist before the first pause and rate() sees its start.
TEST(PmPausedMetricsTest, one_series_per_reason_and_paused_seconds_per_reason) {
  core::LiveState state;
  state.set_devices({testing::synthetic_device(0), testing::synthetic_device(1)});
  constexpr std::int64_t kQuarterNs = 250'000'000;
  for (int i = 0; i < 8; ++i) {  // GPU 0: 1 s running, then 1 s paused for a profiler
    core::SolSample s = testing::synthetic_sample(0, testing::kT0 + i * kQuarterNs, 40.0);
    s.t_end_ns = s.t_start_ns + kQuarterNs;
    if (i >= 4) {
      s.source = core::SourceKind::Gpm;
      s.flags |= core::kSamplePmPaused;
      s.pm_pause = core::PmPauseReason::kProfiler;
    }
    state.add(s);
  }
  const std::string text = render_metrics(state, {.hostname = "node-17", .version = "0.1.0"});
  const std::string gpu0 =
      "{gpu=\"0\",UUID=\"GPU-SYNTHETIC-0\",modelName=\"SYNTHETIC test GPU\","
      "hostname=\"node-17\",";
  EXPECT_EQ(lines_starting(text, "solscope_pm_paused{"),
            (std::vector<std::string>{"solscope_pm_paused" + gpu0 + "reason=\"manual\"} 0",
                                      "solscope_pm_paused" + gpu0 + "reason=\"profiler\"} 1",
                                      "solscope_pm_paused" + gpu0 + "reason=\"dcgm\"} 0",
                                      "solscope_pm_paused" + gpu0 + "reason=\"counters_busy\"} 0",
                                      "solscope_pm_paused" + gpu0 + "reason=\"policy\"} 0"}))
      << "GPU 1 has no sample yet: whether it is paused is not known\n"
      << text;
  EXPECT_NE(text.find("# TYPE solscope_pm_paused gauge"), std::string::npos);
  EXPECT_EQ(text.find("reason=\"none\""), std::string::npos);
  const auto seconds = lines_starting(text, "solscope_pm_paused_seconds_total{gpu=\"0\"");
  ASSERT_EQ(seconds.size(), 5U) << text;
  EXPECT_EQ(seconds[1], "solscope_pm_paused_seconds_total" + gpu0 + "reason=\"profiler\"} 1");
  EXPECT_EQ(seconds[0], "solscope_pm_paused_seconds_total" + gpu0 + "reason=\"manual\"} 0");
  EXPECT_NE(text.find("# TYPE solscope_pm_paused_seconds_total counter"), std::string::npos);
}

TEST_F(MetricsTest, a_running_gpu_reports_every_pause_reason_at_zero) {
  const std::string text = render();
  const auto paused = lines_starting(text, "solscope_pm_paused{gpu=\"1\"");
  ASSERT_EQ(paused.size(), 5U) << text;
  for (const std::string& line : paused) EXPECT_TRUE(line.ends_with("} 0")) << line;
  EXPECT_EQ(lines_starting(text, "solscope_pm_paused_seconds_total{gpu=\"1\"").size(), 5U);
}

TEST_F(MetricsTest, label_values_are_escaped) {
  auto devices = state_.snapshot();
  devices[0].state.info.name = "quote\" back\\slash\nnewline";
  const std::string text = render_metrics(devices, {.hostname = "h", .version = "v"});
  EXPECT_NE(text.find("modelName=\"quote\\\" back\\\\slash\\nnewline\""), std::string::npos) << text;
}

TEST_F(MetricsTest, label_values_that_are_not_utf8_are_repaired_so_prometheus_accepts_the_scrape) {
  // Issue 18, defect 1: the raw bytes reached the scrape and Prometheus refused all of it ("invalid label
  // value"). Now every label value is valid UTF-8, the bad bytes as U+FFFD; valid multibyte text is kept.
  const std::string fffd = "\xEF\xBF\xBD";
  auto devices = state_.snapshot();
  devices[0].state.info.uuid = "GPU-\xFF";
  devices[0].state.info.name = "NV\xC0\xAFID \xC3\xA9";
  devices[0].state.info.chip = "GH\xE2\x82";
  const std::string text = render_metrics(devices, {.hostname = "node-\x80", .version = "v"});
  EXPECT_TRUE(core::is_valid_utf8(text));
  EXPECT_NE(text.find("UUID=\"GPU-" + fffd + "\",modelName=\"NV" + fffd + fffd +
                      "ID \xC3\xA9\",hostname=\"node-" + fffd + "\""),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("chip=\"GH" + fffd + "\""), std::string::npos) << text;
}

/// A locale whose decimal point is a comma, as de_DE has.
struct CommaDecimal : std::numpunct<char> {
  auto do_decimal_point() const -> char override { return ','; }
  auto do_thousands_sep() const -> char override { return '.'; }
  auto do_grouping() const -> std::string override { return "\3"; }
};

TEST_F(MetricsTest, output_does_not_depend_on_the_global_locale) {
  const std::string plain = render();
  const std::locale previous = std::locale::global(std::locale(std::locale::classic(), new CommaDecimal));
  const std::string comma = render();
  std::locale::global(previous);
  EXPECT_EQ(plain, comma);
}

}  // namespace
}  // namespace solscope::server
