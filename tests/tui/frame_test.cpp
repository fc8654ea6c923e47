#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tui/detail/chart.hpp"
#include "tui/detail/frame.hpp"
#include "tui/detail/style.hpp"
#include "tui/detail/widgets.hpp"
#include "tui/format.hpp"

namespace solscope::tui {
namespace {

TEST(FrameTest, put_clips_at_the_edge_and_width) {
  Frame f(2, 5);
  EXPECT_EQ(f.put(0, 3, "abcdef", Role::Normal), 2);
  EXPECT_EQ(f.row_text(0), "   ab");
  EXPECT_EQ(f.put(1, 0, "xyz", Role::Title, 2), 2);
  EXPECT_EQ(f.row_text(1), "xy   ");
  EXPECT_EQ(f.at(1, 0).role, Role::Title);
  f.put(5, 0, "out", Role::Normal);  // outside: ignored
  f.put(0, -2, "ab", Role::Normal);
  EXPECT_EQ(f.row_text(0), "   ab");
}

TEST(FrameTest, decodes_utf8_and_escapes_controls_and_replaces_wide_characters) {
  Frame f(1, 8);
  f.put(0, 0, "\xC2\xB0\x01\xE6\x97\xA5\xE2\x96\x88", Role::Normal);
  EXPECT_EQ(f.at(0, 0).glyph, U'\u00B0');
  EXPECT_EQ(f.row_text(0), "\u00B0\\x01?\u2588 ");
}

TEST(FrameTest, an_injected_escape_sequence_shows_as_text) {
  // Issue 10, item 12: a device name from a hostile trace: OSC "set title", then "clear screen".
  Frame f(1, 40);
  f.put(0, 0, "H100\x1b]0;pwned\x07\x1b[2J", Role::Normal);
  EXPECT_EQ(f.row_text(0), "H100\\x1b]0;pwned\\x07\\x1b[2J             ");
  for (int c = 0; c < f.cols(); ++c) EXPECT_GE(f.at(0, c).glyph, U' ') << "column " << c;
}

TEST(FrameTest, ascii_frames_hold_only_ascii) {
  Frame f(1, 4, true);
  f.put(0, 0,
        "\xE2\x96\x88"
        "a",
        Role::Normal);
  EXPECT_EQ(f.row_text(0), "?a  ");
}

TEST(FormatTest, unknown_is_na_and_percentages_are_clamped) {
  EXPECT_EQ(format_pct(std::nan("")), "n/a");
  EXPECT_EQ(format_pct(64.25), "64.2%");
  EXPECT_EQ(format_pct(103.0), "100.0%");
  EXPECT_EQ(format_gib(80.0 * 1024 * 1024 * 1024), "80.0");
  EXPECT_EQ(format_rate(3.35e12), "3.35 TB/s");
  EXPECT_EQ(format_utc_time(1'700'000'000'000'000'000), "22:13:20");
  EXPECT_EQ(format_span(-300'000'000'000), "-5m");
  EXPECT_EQ(format_clock(3'725'000'000'000), "1:02:05");
  EXPECT_EQ(fit("abcdef", 4, true), "abc~");
  EXPECT_EQ(pad_left("7", 3), "  7");
}

TEST(StyleTest, no_color_wins_and_the_terminal_bounds_the_mode) {
  EXPECT_EQ(choose_color_mode("1", "256", 256), ColorMode::Mono);
  EXPECT_EQ(choose_color_mode("", "", 256), ColorMode::Color256);
  EXPECT_EQ(choose_color_mode("", "", 8), ColorMode::Color16);
  EXPECT_EQ(choose_color_mode("", "", 0), ColorMode::Mono);
  EXPECT_EQ(choose_color_mode("", "16", 256), ColorMode::Color16);
  EXPECT_EQ(choose_color_mode("", "mono", 256), ColorMode::Mono);
  EXPECT_EQ(choose_color_mode("", "256", 8), ColorMode::Color16);
}

TEST(WidgetsTest, bar_fills_in_proportion_and_marks_the_attainable_sol) {
  Frame f(1, 10);
  draw_bar(f, 0, 0, 10, 50.0, Role::BarCompute, 80.0);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(f.at(0, i).glyph, U'\u2588') << i;
  EXPECT_EQ(f.at(0, 5).role, Role::Dim);
  EXPECT_EQ(f.at(0, 8).role, Role::Marker);
  Frame a(1, 4, true);
  draw_bar(a, 0, 0, 4, 100.0, Role::BarMemory, std::nan(""));
  EXPECT_EQ(a.row_text(0), "####");
  Frame n(1, 4, true);
  draw_bar(n, 0, 0, 4, std::nan(""), Role::BarMemory, std::nan(""));
  EXPECT_EQ(n.row_text(0), "....");
}

TEST(ChartTest, fills_the_area_under_the_values_and_labels_the_time_axis) {
  Frame f(7, 64, true);
  std::vector<ChartPoint> points;
  const std::int64_t s = 1'000'000'000;
  for (int i = 1; i <= 60; ++i) points.push_back({i * s, i <= 30 ? 100.0 : 0.0});
  draw_chart(f, f.bounds(),
             ChartSpec{.title = "Compute SOL", .role = Role::BarCompute, .from_ns = 0, .to_ns = 60 * s},
             points);
  EXPECT_EQ(f.row_text(0).substr(0, 11), "Compute SOL");
  EXPECT_NE(f.row_text(1).find("100|"), std::string::npos);
  // Left half full at every plot row, right half empty.
  for (int r = 1; r <= 5; ++r) {
    EXPECT_EQ(f.at(r, kChartScaleWidth + 2).glyph, U'#') << f.text();
    EXPECT_EQ(f.at(r, 62).glyph, U' ') << f.text();
  }
  const std::string axis = f.row_text(6);
  EXPECT_NE(axis.find("now"), std::string::npos) << axis;
  EXPECT_NE(axis.find("-30s"), std::string::npos) << axis;
}

TEST(ChartTest, braille_packs_two_columns_and_four_rows_per_cell) {
  Frame f(3, 14);
  const std::vector<ChartPoint> points{{1, 100.0}};
  // One plot row: a full column is dots 1,2,3,7 (0x47) in the first half of a cell.
  draw_chart(f, f.bounds(), ChartSpec{.title = "t", .role = Role::BarCompute, .from_ns = 0, .to_ns = 20},
             points);
  EXPECT_EQ(f.at(1, kChartScaleWidth).glyph, U'\u2800' + 0x47);
}

TEST(ChartTest, merge_gives_about_one_point_per_dot_column) {
  EXPECT_EQ(chart_merge_for(60'000'000'000, 1'000'000'000, 64), 1);
  EXPECT_EQ(chart_merge_for(3'600'000'000'000, 1'000'000'000, 64), 30);
}

}  // namespace
}  // namespace solscope::tui

namespace solscope::tui {
namespace {

TEST(ChartTest, sparse_points_leave_no_holes_but_data_gaps_stay_blank) {
  Frame f(3, 24, true);  // 20 plot columns
  std::vector<ChartPoint> points;
  for (int x : {2, 5, 8, 17}) points.push_back({x * 10 + 5, 100.0});  // 10 ns per column
  draw_chart(f, f.bounds(), ChartSpec{.title = "t", .role = Role::BarCompute, .from_ns = 0, .to_ns = 200},
             points);
  const std::string plot = f.row_text(1).substr(kChartScaleWidth);
  EXPECT_EQ(plot, "  #######        #  ") << plot;
}

}  // namespace
}  // namespace solscope::tui
