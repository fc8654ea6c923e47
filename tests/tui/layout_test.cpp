// Layout invariants over terminal sizes, GPU counts, views and selections (docs/design/style.md section 4).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tui/detail/layout.hpp"

namespace solscope::tui {
namespace {

constexpr View kViews[] = {View::Sol, View::Classic, View::Dcgm, View::Detail, View::Workloads};

auto describe(const LayoutRequest& r) -> std::string {
  return std::to_string(r.rows) + "x" + std::to_string(r.cols) + " gpus=" + std::to_string(r.device_count) +
         " view=" + std::string(to_string(r.view)) + " selected=" + std::to_string(r.selected);
}

/// Every invariant of one layout; returns the first broken one, or "".
auto check(const LayoutRequest& req) -> std::string {
  const Layout l = compute_layout(req);
  const Rect screen{0, 0, std::max(req.rows, 0), std::max(req.cols, 0)};
  if (req.rows < kMinRows || req.cols < kMinCols) {
    if (!l.too_small || !l.panels.empty() || !l.charts.empty() || !l.processes.empty()) return "too small";
    return {};
  }
  if (l.too_small) return "too_small on a big enough screen";
  std::vector<Rect> all{l.header, l.footer, l.table_header, l.processes, l.workloads};
  all.insert(all.end(), l.panels.begin(), l.panels.end());
  all.insert(all.end(), l.charts.begin(), l.charts.end());
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!screen.contains(all[i])) return "rect " + std::to_string(i) + " outside the screen";
    for (std::size_t j = i + 1; j < all.size(); ++j) {
      if (all[i].overlaps(all[j]))
        return "rects " + std::to_string(i) + " and " + std::to_string(j) + " overlap";
    }
  }
  if (l.header.height != 1 || l.footer.height != 1 || l.footer.row != req.rows - 1) return "header/footer";
  if (req.view == View::Workloads) {  // no GPU panels: the roll-up's rows, then the process table
    if (req.device_count == 0) return {};
    if (!l.panels.empty() || !l.charts.empty()) return "GPU panels or charts in the Workloads view";
    if (l.table_header.height != 1 || l.workloads.height < 1 || l.workloads.row != l.table_header.row + 1)
      return "workload table missing";
    if (req.workload_count > 0 && static_cast<std::size_t>(l.workloads.height) > req.workload_count)
      return "more workload rows than workloads";
    if (l.processes.empty() && l.body.height - 1 - l.workloads.height >= kProcessesMinHeight)
      return "process table left out with room for it";
    if (!l.processes.empty() && l.processes.height < kProcessesMinHeight) return "process table too small";
    return {};
  }
  if (!l.workloads.empty()) return "workload rows outside the Workloads view";
  if (req.device_count > 0 && l.panels.empty()) return "no GPU shown";
  if (l.first_device + l.panels.size() > req.device_count) return "panels past the device list";
  if (req.device_count > 0 && req.view != View::Detail) {
    const std::size_t sel = std::min(req.selected, req.device_count - 1);
    if (sel < l.first_device || sel >= l.first_device + l.panels.size()) return "selected GPU not visible";
  }
  for (const auto& p : l.panels) {
    if (p.height < 1) return "panel without rows";
    const bool full = req.view == View::Sol && !l.compact;
    if (full && (p.height != kFullPanelHeight || p.width < kFullPanelMinWidth)) return "full panel too small";
    if (!full && p.width < kMinCols) return "row too narrow";
  }
  for (const auto& c : l.charts) {
    if (c.height < kChartMinHeight || c.width < kChartMinWidth) return "chart too small";
  }
  if (!l.processes.empty() && l.processes.height < kProcessesMinHeight) return "process table too small";
  return {};
}

void sweep(int row_step, int col_step) {
  for (int rows = 0; rows <= 80; rows += row_step) {
    for (int cols = 0; cols <= 320; cols += col_step) {
      for (std::size_t n : {0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 33}) {
        for (const View view : kViews) {
          for (std::size_t selected : {std::size_t{0}, n / 2, n == 0 ? 0 : n - 1}) {
            const LayoutRequest req{.rows = rows,
                                    .cols = cols,
                                    .device_count = n,
                                    .view = view,
                                    .selected = selected,
                                    .workload_count = n * 3 / 2};
            const std::string broken = check(req);
            ASSERT_TRUE(broken.empty()) << broken << " at " << describe(req);
          }
        }
      }
    }
  }
}

TEST(LayoutTest, invariants_hold_over_many_sizes_gpu_counts_and_views) {
#ifdef SOLSCOPE_THOROUGH_TESTS
  sweep(1, 1);
#else
  sweep(3, 7);
#endif
}

TEST(LayoutTest, invariants_hold_at_the_sizes_the_issue_names) {
  for (const auto& [rows, cols] :
       {std::pair{24, 80}, std::pair{50, 200}, std::pair{24, 300}, std::pair{80, 300}}) {
    for (std::size_t n = 1; n <= 8; ++n) {
      for (const View view : kViews) {
        const LayoutRequest req{
            .rows = rows, .cols = cols, .device_count = n, .view = view, .selected = n - 1};
        EXPECT_EQ(check(req), "") << describe(req);
      }
    }
  }
}

TEST(LayoutTest, eight_gpus_at_200x50_get_full_panels_in_two_columns_and_charts) {
  const Layout l = compute_layout({.rows = 50, .cols = 200, .device_count = 8});
  ASSERT_EQ(l.panels.size(), 8u);
  EXPECT_FALSE(l.compact);
  EXPECT_EQ(l.panels[0].row, l.panels[1].row);
  EXPECT_NE(l.panels[1].row, l.panels[2].row);
  EXPECT_EQ(l.charts.size(), 3u);
  EXPECT_FALSE(l.processes.empty());
}

TEST(LayoutTest, four_gpus_at_80x24_use_compact_rows_with_charts) {
  const Layout l = compute_layout({.rows = 24, .cols = 80, .device_count = 4});
  EXPECT_TRUE(l.compact);
  ASSERT_EQ(l.panels.size(), 4u);
  EXPECT_EQ(l.panels[0].height, 2);
  EXPECT_EQ(l.charts.size(), 3u);
}

TEST(LayoutTest, many_gpus_on_a_short_screen_scroll_to_the_selected_one) {
  const Layout l = compute_layout({.rows = 10, .cols = 80, .device_count = 16, .selected = 15});
  EXPECT_TRUE(l.compact);
  ASSERT_FALSE(l.panels.empty());
  EXPECT_EQ(l.first_device + l.panels.size(), 16u);
}

TEST(LayoutTest, below_the_minimum_only_the_message_area_is_set) {
  const Layout l = compute_layout({.rows = 5, .cols = 30, .device_count = 2});
  EXPECT_TRUE(l.too_small);
  EXPECT_EQ(l.header, (Rect{0, 0, 5, 30}));
  EXPECT_TRUE(l.panels.empty());
}

// Issue 24: the Workloads view: a heading, one row per workload while the process table keeps its minimum.
TEST(LayoutTest, workloads_view_gives_each_workload_a_row_above_the_processes) {
  Layout l = compute_layout(
      {.rows = 24, .cols = 80, .device_count = 2, .view = View::Workloads, .workload_count = 4});
  EXPECT_EQ(l.table_header, (Rect{1, 0, 1, 80}));
  EXPECT_EQ(l.workloads, (Rect{2, 0, 4, 80}));
  EXPECT_EQ(l.processes, (Rect{6, 0, 17, 80}));
  EXPECT_TRUE(l.panels.empty());
  EXPECT_TRUE(l.charts.empty());
  l = compute_layout(
      {.rows = 10, .cols = 80, .device_count = 2, .view = View::Workloads, .workload_count = 40});
  EXPECT_EQ(l.workloads, (Rect{2, 0, 4, 80}));  // 8 body rows: heading, 4 workload rows, 3 process rows
  EXPECT_EQ(l.processes.height, kProcessesMinHeight);
  l = compute_layout(
      {.rows = 24, .cols = 80, .device_count = 2, .view = View::Workloads, .workload_count = 0});
  EXPECT_EQ(l.workloads.height, 1);  // one row says that none is known
}

TEST(LayoutTest, detail_view_shows_only_the_selected_gpu) {
  const Layout l =
      compute_layout({.rows = 50, .cols = 200, .device_count = 8, .view = View::Detail, .selected = 5});
  ASSERT_EQ(l.panels.size(), 1u);
  EXPECT_EQ(l.first_device, 5u);
  EXPECT_EQ(l.charts.size(), 3u);
}

}  // namespace
}  // namespace solscope::tui
