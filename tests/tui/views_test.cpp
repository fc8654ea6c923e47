#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "tui/detail/model.hpp"
#include "tui/detail/views.hpp"

namespace solscope::tui {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

auto window(std::uint32_t device, double compute, double memory, double util) -> core::SolSample {
  core::SolSample w;
  w.device_index = device;
  w.t_start_ns = 100 * kSecond;
  w.t_end_ns = 101 * kSecond;
  w.compute_sol_pct = compute;
  w.compute_pipe = std::isnan(compute) ? core::Pipe::kCount : core::Pipe::Tensor;
  w.memory_sol_pct = memory;
  w.memory_path = std::isnan(memory) ? core::MemPath::kCount : core::MemPath::Dram;
  w.pipe_pct[0] = compute;
  w.bound = core::Bound::Compute;
  w.metrics[core::index_of(core::MetricId::GpuUtil)] = util;
  w.metrics[core::index_of(core::MetricId::SmActive)] = 88.1;
  w.metrics[core::index_of(core::MetricId::PowerW)] = 512.0;
  w.metrics[core::index_of(core::MetricId::PowerLimitW)] = 700.0;
  return w;
}

auto device(std::uint32_t index, core::SourceKind source, core::SolSample w) -> core::DeviceSnapshot {
  core::DeviceSnapshot d;
  d.state.info.index = index;
  d.state.info.name = "Test GPU " + std::to_string(index);
  d.state.source = source;
  d.latest_window = w;
  return d;
}

auto model_of(std::size_t gpus) -> ScreenModel {
  ScreenModel m;
  m.source =
      SourceInfo{.title = "replay of t.sqlite", .synthetic = true, .process_note = "no process information"};
  for (std::uint32_t i = 0; i < gpus; ++i) {
    m.devices.push_back(device(i, core::SourceKind::PmSampling, window(i, 64.25 + i, 31.0, 98.0)));
  }
  m.now_ns = 101 * kSecond;
  return m;
}

auto draw(const ScreenModel& m, const UiState& ui, int rows, int cols) -> std::string {
  Frame f(rows, cols);
  render(m, ui, compute_layout(layout_request(m, ui, rows, cols)), f);
  return f.text();
}

TEST(ViewsTest, sol_view_shows_each_gpu_its_sol_figures_and_the_header) {
  const std::string text = draw(model_of(8), UiState{}, 50, 200);
  EXPECT_NE(text.find("SYNTHETIC"), std::string::npos);
  EXPECT_NE(text.find("replay of t.sqlite"), std::string::npos);
  for (int i = 0; i < 8; ++i) {
    EXPECT_NE(text.find("GPU " + std::to_string(i) + " Test GPU " + std::to_string(i)), std::string::npos)
        << i;
  }
  EXPECT_NE(text.find("64.2% tensor"), std::string::npos) << text;
  EXPECT_NE(text.find("71.2% tensor"), std::string::npos) << text;
  EXPECT_NE(text.find("31.0% dram"), std::string::npos);
  EXPECT_NE(text.find("98.0%"), std::string::npos);
  EXPECT_NE(text.find("SM active 88.1%"), std::string::npos);
  EXPECT_NE(text.find("power 512/700 W"), std::string::npos);
  EXPECT_NE(text.find("PM sampling"), std::string::npos);
  EXPECT_NE(text.find("no process information"), std::string::npos);
  EXPECT_NE(text.find("q quit"), std::string::npos);
}

TEST(ViewsTest, compact_rows_at_80x24_still_show_every_gpu) {
  const std::string text = draw(model_of(4), UiState{}, 24, 80);
  for (int i = 0; i < 4; ++i) EXPECT_NE(text.find("GPU " + std::to_string(i)), std::string::npos) << text;
  EXPECT_NE(text.find("64.2% tensor"), std::string::npos) << text;
  EXPECT_NE(text.find("Compute SOL GPU 0"), std::string::npos) << text;
}

// Issue 23: a MIG instance is named "GPU <parent> · MIG <profile> #<GPU_I_ID>" (core::device_label) in the
// SOL view, its chart titles and the classic table; before, it was "GPU <its own index>" like a whole GPU.
TEST(ViewsTest, a_mig_instance_is_named_by_its_gpu_profile_and_id) {
  ScreenModel m = model_of(1);
  auto slice = device(1, core::SourceKind::Gpm, window(1, 40.0, 20.0, 90.0));
  slice.state.info.name = "NVIDIA H100 80GB HBM3";
  slice.state.info.gpu_index = 0;
  slice.state.info.mig_profile = "3g.40gb";
  slice.state.info.mig_instance_id = 1;
  m.devices.push_back(slice);
  UiState ui;
  ui.selected = 1;
  std::string text = draw(m, ui, 50, 200);
  EXPECT_NE(text.find("GPU 0 \u00b7 MIG 3g.40gb #1 NVIDIA H100 80GB HBM3"), std::string::npos) << text;
  EXPECT_NE(text.find("Compute SOL GPU 0 \u00b7 MIG 3g.40gb #1, last"), std::string::npos) << text;
  EXPECT_EQ(text.find("GPU 1 "), std::string::npos) << "no whole GPU 1 here: " << text;
  ui.view = View::Classic;
  text = draw(m, ui, 24, 160);
  EXPECT_NE(text.find("GPU 0 \u00b7 MIG 3g.40gb #1 NVIDIA H100"), std::string::npos) << text;
}

TEST(ViewsTest, sol_na_says_why) {
  ScreenModel m = model_of(0);
  auto d = device(0, core::SourceKind::NvmlOnly, window(0, std::nan(""), std::nan(""), 40.0));
  d.state.source_note = "PM sampling busy: another profiler holds the counters; stop it";
  m.devices.push_back(d);
  const std::string text = draw(m, UiState{}, 50, 200);
  EXPECT_NE(text.find("SOL n/a: PM sampling busy: another profiler holds the counters"), std::string::npos)
      << text;
  EXPECT_NE(text.find("NVML only"), std::string::npos);
}

/// The title of the panel whose heading is `heading`: from it to the end of its row or to the next panel's
/// heading on the same row (panels side by side).
auto title_of(const std::string& text, const std::string& heading) -> std::string {
  const std::size_t at = text.find(heading);
  if (at == std::string::npos) return {};
  const std::size_t row_end = text.find('\n', at);
  const std::size_t next = text.find("GPU ", at + heading.size());
  return text.substr(at, std::min(row_end, next) - at);
}

// Issue 23: a GPU whose PM sampling is paused says so and why on its title row, and names the source that
// stands in (the window's: GPM here) instead of the one chosen at start; the detail view's source row too.
TEST(ViewsTest, a_paused_gpu_shows_the_reason_and_the_source_that_stands_in) {
  ScreenModel m = model_of(2);
  core::SolSample& w = *m.devices[1].latest_window;
  w.source = core::SourceKind::Gpm;
  w.flags |= core::kSamplePmPaused;
  w.pm_pause = core::PmPauseReason::kProfiler;
  for (const auto& [rows, cols] : {std::pair{50, 200}, std::pair{24, 120}}) {  // full panels, compact entries
    const std::string text = draw(m, UiState{}, rows, cols);
    const std::string gpu0 = title_of(text, "GPU 0 Test GPU 0");
    const std::string gpu1 = title_of(text, "GPU 1 Test GPU 1");
    EXPECT_NE(gpu1.find("compute-bound \u00B7 GPM \u00B7 PM paused (profiler)"), std::string::npos)
        << rows << "x" << cols << "\n"
        << text;
    EXPECT_EQ(gpu1.find("PM sampling"), std::string::npos) << gpu1;
    EXPECT_NE(gpu0.find("compute-bound \u00B7 PM sampling"), std::string::npos) << gpu0;
    EXPECT_EQ(gpu0.find("paused"), std::string::npos) << gpu0;
  }
  UiState ui;
  ui.view = View::Detail;
  ui.selected = 1;
  const std::string detail = draw(m, ui, 50, 200);
  EXPECT_NE(detail.find("source: GPM, PM paused (profiler)"), std::string::npos) << detail;
}

TEST(ViewsTest, classic_and_dcgm_views_are_tables) {
  UiState ui;
  ui.view = View::Classic;
  std::string text = draw(model_of(2), ui, 24, 120);
  EXPECT_NE(text.find("GPU-Util"), std::string::npos) << text;
  EXPECT_NE(text.find("512W / 700W"), std::string::npos) << text;
  ui.view = View::Dcgm;
  text = draw(model_of(2), ui, 24, 120);
  EXPECT_NE(text.find("SMACT"), std::string::npos) << text;
  EXPECT_NE(text.find("88.1%"), std::string::npos) << text;
}

TEST(ViewsTest, detail_view_lists_every_pipe_and_path) {
  UiState ui;
  ui.view = View::Detail;
  ui.selected = 1;
  const std::string text = draw(model_of(2), ui, 50, 200);
  for (const char* name : {"tensor", "fma_heavy", "fp64", "lsu", "dram", "l2", "l1"}) {
    EXPECT_NE(text.find(name), std::string::npos) << name;
  }
  EXPECT_NE(text.find("GPU 1 Test GPU 1"), std::string::npos);
  EXPECT_NE(text.find("sets Compute SOL"), std::string::npos);
}

// The attainable SOL says its gap to the live figure in points and what limits it, in the detail view's own
// row and after the state line of the SOL view's panel.
TEST(ViewsTest, attainable_figures_say_the_gap_in_points_and_the_limiter) {
  core::SolSample w = window(0, 30.0, 75.0, 98.0);
  w.attainable_compute_sol_pct = 42.3;
  w.attainable_memory_sol_pct = 80.1;
  w.attainable_limiter = core::Limiter::Memory;
  ScreenModel m = model_of(0);
  m.devices.push_back(device(0, core::SourceKind::PmSampling, w));
  constexpr const char* kLine =
      "attainable compute 42.3% (+12.3 pts), memory 80.1% (+5.1 pts), limited by memory bandwidth";
  UiState ui;
  ui.view = View::Detail;
  EXPECT_NE(draw(m, ui, 50, 200).find(std::string(" ") + kLine), std::string::npos) << draw(m, ui, 50, 200);
  EXPECT_NE(draw(m, UiState{}, 50, 200).find(kLine), std::string::npos) << draw(m, UiState{}, 50, 200);
  // A GPU faster than the model reads a negative gap; an unknown limiter is left out.
  m.devices[0].latest_window->attainable_memory_sol_pct = 70.0;
  m.devices[0].latest_window->attainable_limiter = core::Limiter::kCount;
  const std::string text = draw(m, ui, 50, 200);
  EXPECT_NE(text.find("attainable compute 42.3% (+12.3 pts), memory 70.0% (-5.0 pts)\n"), std::string::npos)
      << text;
  // No ceiling: the detail view says so.
  m.devices[0].latest_window = window(0, 30.0, 75.0, 98.0);
  EXPECT_NE(draw(m, ui, 50, 200).find(" attainable: n/a"), std::string::npos);
}

TEST(ViewsTest, help_overlay_lists_the_keys) {
  UiState ui;
  ui.help = true;
  const std::string text = draw(model_of(1), ui, 40, 120);
  EXPECT_NE(text.find("keys of the solscope view"), std::string::npos);
  EXPECT_NE(text.find("seek back/forward"), std::string::npos);
}

TEST(ViewsTest, a_tiny_terminal_gets_a_message) {
  const std::string text = draw(model_of(1), UiState{}, 5, 30);
  EXPECT_NE(text.find("terminal too small"), std::string::npos);
}

TEST(ModelTest, capture_copies_devices_and_the_selected_gpus_history) {
  core::LiveState state;
  state.set_devices({core::DeviceState{.info = {.index = 0}}, core::DeviceState{.info = {.index = 1}}});
  for (int s = 0; s < 5; ++s) {
    for (std::uint32_t d = 0; d < 2; ++d) {
      core::SolSample x = window(d, 10.0 * (d + 1), 5.0, 50.0);
      x.t_start_ns = s * kSecond;
      x.t_end_ns = (s + 1) * kSecond;
      state.add(x);
    }
  }
  ScreenModel m;
  capture(state, 1, 1, m);
  ASSERT_EQ(m.devices.size(), 2u);
  EXPECT_EQ(m.now_ns, 5 * kSecond);
  ASSERT_EQ(m.history.size(), 4u);  // complete windows only
  EXPECT_DOUBLE_EQ(m.history.back().compute_sol_pct, 20.0);
}

TEST(ModelTest, capture_history_follows_the_selection_without_moving_the_devices) {
  core::LiveState state;
  state.set_devices({core::DeviceState{.info = {.index = 0}}, core::DeviceState{.info = {.index = 1}}});
  const auto add_second = [&state](int s) {
    for (std::uint32_t d = 0; d < 2; ++d) {
      core::SolSample x = window(d, 10.0 * (d + 1), 5.0, 50.0);
      x.t_start_ns = s * kSecond;
      x.t_end_ns = (s + 1) * kSecond;
      state.add(x);
    }
  };
  for (int s = 0; s < 5; ++s) add_second(s);
  ScreenModel m;
  capture(state, 0, 1, m);
  ASSERT_FALSE(m.history.empty());
  EXPECT_DOUBLE_EQ(m.history.back().compute_sol_pct, 10.0);
  add_second(5);  // the state moves on; the frozen model keeps its devices and time
  capture_history(state, 1, 1, m);
  EXPECT_EQ(m.now_ns, 5 * kSecond);
  ASSERT_EQ(m.history.size(), 5u);
  EXPECT_DOUBLE_EQ(m.history.front().compute_sol_pct, 20.0);
  EXPECT_DOUBLE_EQ(m.history.back().compute_sol_pct, 20.0);
}

}  // namespace
}  // namespace solscope::tui

namespace solscope::tui {
namespace {

TEST(ModelTest, merged_history_covers_the_whole_window) {
  core::LiveState state;
  state.set_devices({core::DeviceState{.info = {.index = 0}}});
  for (int s = 0; s < 40; ++s) {
    core::SolSample x = window(0, 50.0, 5.0, 50.0);
    x.t_start_ns = 1'767'225'600 * kSecond + s * kSecond;
    x.t_end_ns = x.t_start_ns + kSecond;
    state.add(x);
  }
  ScreenModel m;
  capture(state, 0, 2, m);
  ASSERT_GE(m.history.size(), 19u);
  EXPECT_LE(m.history.front().t_end_ns - (1'767'225'600 * kSecond), 2 * kSecond);
}

}  // namespace
}  // namespace solscope::tui
