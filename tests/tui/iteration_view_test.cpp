// The training iteration in the terminal view (issue 25): the detail view's "iteration" line and its
// one-iteration strip chart, at full width, on narrow terminals, in ASCII and when the GPU is not periodic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "tui/detail/model.hpp"
#include "tui/detail/view_parts.hpp"
#include "tui/detail/views.hpp"
#include "tui/format.hpp"

namespace solscope::tui {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;
using Part = core::IterationPart;

/// 125 ms, 3.2 ms jitter; 30 compute bins, 6 memory, 10 communication, 2 idle.
auto periodic() -> core::IterationEstimate {
  core::IterationEstimate it;
  it.periodic = true;
  it.period_s = 0.125;
  it.jitter_s = 0.0032;
  it.confidence = 0.912;
  it.part_ratio = {0.62, 0.12, 0.18, 0.0, 0.08};
  it.compute_ratio = 0.74;  // compute + memory + latency
  it.communication_ratio = 0.30;
  it.exposed_communication_ratio = 0.18;
  it.communication_offset_s = 0.09;
  for (std::size_t b = 0; b < core::kIterationStripBins; ++b) {
    it.strip[b] = b < 30 ? Part::Compute : b < 36 ? Part::Memory : b < 46 ? Part::Communication : Part::Idle;
  }
  return it;
}

auto model_with(const core::IterationEstimate& it) -> ScreenModel {
  ScreenModel m;
  m.source = SourceInfo{.title = "replay of t.sqlite", .synthetic = true, .process_note = "none"};
  core::DeviceSnapshot d;
  d.state.info.index = 0;
  d.state.info.name = "Test GPU";
  d.state.source = core::SourceKind::PmSampling;
  core::SolSample w;
  w.t_start_ns = 100 * kSecond;
  w.t_end_ns = 101 * kSecond;
  d.latest_window = w;
  d.iteration = it;
  m.devices.push_back(d);
  m.now_ns = 101 * kSecond;
  return m;
}

auto draw_detail_view(const ScreenModel& m, int rows, int cols, bool ascii = false) -> Frame {
  UiState ui;
  ui.view = View::Detail;
  Frame f(rows, cols, ascii);
  render(m, ui, compute_layout(layout_request(m, ui, rows, cols)), f);
  return f;
}

/// The frame's row that starts with `prefix`; -1 when none.
auto row_of(const Frame& f, const std::string& prefix) -> int {
  for (int r = 0; r < f.rows(); ++r) {
    if (f.row_text(r).rfind(prefix, 0) == 0) return r;
  }
  return -1;
}

auto repeat(const char* glyph, int n) -> std::string {
  std::string out;
  for (int i = 0; i < n; ++i) out += glyph;
  return out;
}

TEST(IterationViewTest, the_line_says_period_jitter_and_the_shares) {
  core::IterationEstimate it = periodic();
  EXPECT_EQ(detail::iteration_line(it),
            "iteration 125.0 ms  jitter 3.2 ms  compute 74.0%  communication 30.0%  exposed 18.0%  "
            "confidence 0.91");
  it.period_s = 1.5;
  it.jitter_s = 0.04;
  EXPECT_EQ(detail::iteration_line(it),
            "iteration 1.50 s  jitter 40.0 ms  compute 74.0%  communication 30.0%  exposed 18.0%  "
            "confidence 0.91");
}

TEST(IterationViewTest, not_periodic_says_why_and_never_shows_a_period) {
  core::IterationEstimate it;
  it.note = "no repeat found";
  it.confidence = 0.31;
  EXPECT_EQ(detail::iteration_line(it), "iteration not periodic (no repeat found)  confidence 0.31");
  EXPECT_EQ(detail::iteration_line(core::IterationEstimate{}), "iteration not periodic");
  EXPECT_TRUE(detail::strip_cells(it, 80).empty());

  const Frame f = draw_detail_view(model_with(it), 50, 200);
  const int row = row_of(f, " iteration not periodic (no repeat found)  confidence 0.31");
  ASSERT_GE(row, 0) << f.text();
  EXPECT_EQ(f.at(row, 1).role, Role::Dim);
  EXPECT_EQ(row_of(f, " one iteration "), -1) << f.text();
  EXPECT_EQ(f.text().find("jitter"), std::string::npos) << f.text();
}

// The detail view at 200 columns: the iteration line below the attainable line, then the 48-cell strip with
// one glyph and role per part and the whole legend.
TEST(IterationViewTest, the_detail_view_draws_the_line_and_the_strip_with_its_legend) {
  const Frame f = draw_detail_view(model_with(periodic()), 50, 200);
  const int line = row_of(f, " iteration 125.0 ms  jitter 3.2 ms  compute 74.0%  communication 30.0%");
  ASSERT_GE(line, 0) << f.text();
  EXPECT_EQ(f.row_text(line - 1).rfind(" attainable: n/a", 0), 0u) << f.text();
  const std::string strip =
      " one iteration " + repeat("\u2588", 30) + repeat("\u2593", 6) + repeat("\u2592", 10) +
      repeat("\u00B7", 2) +
      "  \u2588 compute  \u2593 memory  \u2592 communication  \u2591 latency  \u00B7 idle";
  EXPECT_EQ(row_of(f, strip), line + 1) << f.text();
  constexpr int kFirst = 15;  // the strip's first cell, after " one iteration "
  EXPECT_EQ(f.at(line + 1, kFirst).role, Role::BarCompute);
  EXPECT_EQ(f.at(line + 1, kFirst + 30).role, Role::BarMemory);
  EXPECT_EQ(f.at(line + 1, kFirst + 36).role, Role::BarCommunication);
  EXPECT_EQ(f.at(line + 1, kFirst + 47).role, Role::Dim);
  // The pipes follow the strip.
  EXPECT_EQ(f.row_text(line + 2).rfind("Compute pipes", 0), 0u) << f.text();
}

TEST(IterationViewTest, ascii_frames_draw_the_strip_with_ascii_glyphs) {
  const Frame f = draw_detail_view(model_with(periodic()), 50, 200, true);
  const std::string strip =
      " one iteration " + std::string(30, '#') + std::string(6, '=') + std::string(10, '~') + "..";
  EXPECT_GE(row_of(f, strip + "  # compute  = memory  ~ communication  - latency  . idle"), 0) << f.text();
}

// Narrow terminals: the legend keeps only the entries that fit whole; below 48 free cells the strip shrinks,
// cell i showing bin i x 48 / width.
TEST(IterationViewTest, narrow_terminals_shrink_the_legend_then_the_strip) {
  const std::string full =
      repeat("\u2588", 30) + repeat("\u2593", 6) + repeat("\u2592", 10) + repeat("\u00B7", 2);
  Frame f = draw_detail_view(model_with(periodic()), 40, 80);  // 63 cells of strip, 17 left: one entry
  EXPECT_NE(f.text().find("\n one iteration " + full + "  \u2588 compute\n"), std::string::npos) << f.text();

  const auto cells = detail::strip_cells(periodic(), 24);
  ASSERT_EQ(cells.size(), 24u);
  EXPECT_EQ(std::count(cells.begin(), cells.end(), Part::Compute), 15);
  EXPECT_EQ(std::count(cells.begin(), cells.end(), Part::Memory), 3);
  EXPECT_EQ(std::count(cells.begin(), cells.end(), Part::Communication), 5);
  EXPECT_EQ(cells.back(), Part::Idle);
  EXPECT_EQ(detail::strip_cells(periodic(), 200).size(), core::kIterationStripBins);

  f = draw_detail_view(model_with(periodic()), 40, 40);  // kMinCols: 25 cells, no legend
  const int row = row_of(f, " one iteration ");
  ASSERT_GE(row, 0) << f.text();
  EXPECT_EQ(f.row_text(row), " one iteration " + repeat("\u2588", 16) + repeat("\u2593", 3) +
                                 repeat("\u2592", 5) + repeat("\u00B7", 1))
      << f.text();
}

TEST(IterationViewTest, periods_format_in_ms_below_a_second_and_in_s_above) {
  EXPECT_EQ(format_seconds(0.125), "125.0 ms");
  EXPECT_EQ(format_seconds(0.0004), "0.4 ms");
  EXPECT_EQ(format_seconds(2.0), "2.00 s");
  EXPECT_EQ(format_seconds(std::nan("")), "n/a");
}

}  // namespace
}  // namespace solscope::tui
