// The fleet view (tui/fleet_view.hpp): table text, sort and filter keys, history and back, errors shown.
// Rows are SYNTHETIC.
#include "tui/detail/fleet_view.hpp"

#include <gtest/gtest.h>

#include <string>

namespace solscope::tui {
namespace {

auto row(std::string host, std::string gpu, double compute_mean, double busy_idle_h = 0) -> fleet::FleetRow {
  fleet::FleetRow r;
  r.key.host = std::move(host);
  r.key.gpu = std::move(gpu);
  r.key.model_name = "NVIDIA H100 80GB HBM3";
  r.compute_sol_pct = compute_mean;
  r.compute_sol_mean_pct = compute_mean;
  r.memory_sol_pct = 40;
  r.memory_sol_mean_pct = 41;
  r.gpu_util_pct = 90;
  r.gpu_util_mean_pct = 91;
  r.busy_idle_gpu_hours = busy_idle_h;
  return r;
}

auto key(char32_t c) -> Key {
  return Key{KeyCode::Char, c};
}

struct Fixture {
  FleetViewData data;
  FleetViewState state;
  Fixture() {
    data.snapshot.rows = {row("node2", "0", 50), row("node10", "0", 12.5, 0.75), row("node2", "1", 30)};
    fleet::mark_stragglers(data.snapshot.rows);
    data.snapshot.window_start_ns = 0;
    data.snapshot.window_end_ns = 3'600'000'000'000;
    data.snapshot.notes = {"series limit 3 reached: 9 GPUs not shown"};
    data.source = "prometheus at http://p:9090, selector (none), window 3600s";
    apply_view(data, state, 20);
  }
  auto screen(int rows = 24, int cols = 160) -> std::string {
    Frame f(rows, cols);
    render_fleet(data, state, f);
    return f.text();
  }
  auto row_text(int r) -> std::string {
    Frame f(24, 160);
    render_fleet(data, state, f);
    return f.row_text(r);
  }
};

TEST(FleetView, table_lists_rows_in_natural_host_order_with_figures_and_notes) {
  Fixture fx;
  const std::string s = fx.screen();
  EXPECT_NE(s.find("3 GPUs, 3 shown"), std::string::npos) << s;
  EXPECT_NE(s.find("busy-idle 0.75 GPU-h"), std::string::npos) << s;
  EXPECT_NE(s.find("series limit 3 reached: 9 GPUs not shown"), std::string::npos) << s;
  EXPECT_EQ(fx.row_text(3).rfind("node2", 0), 0u);
  EXPECT_EQ(fx.row_text(5).rfind("node10", 0), 0u);
  EXPECT_NE(fx.row_text(5).find("12.5%"), std::string::npos) << fx.row_text(5);
  EXPECT_NE(fx.row_text(5).find("0.75"), std::string::npos);
  // Host node2's two GPUs: median 40, gaps +10.0 and -10.0 (not beyond the threshold).
  EXPECT_NE(fx.row_text(3).find("+10.0"), std::string::npos) << fx.row_text(3);
}

TEST(FleetView, s_cycles_the_sort_and_keeps_the_selected_gpu) {
  Fixture fx;
  EXPECT_EQ(fleet_key(key('s'), fx.state, fx.data, 20), FleetAction::None);
  EXPECT_EQ(fx.state.sort, fleet::SortKey::ComputeSolMean);
  EXPECT_EQ(fx.row_text(3).rfind("node10", 0), 0u);  // 12.5 % first
  const auto* sel = selected_row(fx.data, fx.state);
  ASSERT_NE(sel, nullptr);
  EXPECT_EQ(sel->key.host + "/" + sel->key.gpu, "node2/0");  // still the GPU selected before
  EXPECT_NE(fx.screen().find("sort: compute-mean"), std::string::npos);
}

TEST(FleetView, slash_edits_the_filter_and_esc_clears_it) {
  Fixture fx;
  (void)fleet_key(key('/'), fx.state, fx.data, 20);
  EXPECT_TRUE(fx.state.editing_filter);
  for (char c : std::string("node1")) (void)fleet_key(key(static_cast<char32_t>(c)), fx.state, fx.data, 20);
  EXPECT_EQ(fx.data.visible.size(), 1u);                                     // node10 only
  EXPECT_EQ(fleet_key(key('q'), fx.state, fx.data, 20), FleetAction::None);  // typed, not quit
  EXPECT_EQ(fx.state.filter, "node1q");
  EXPECT_EQ(fx.data.visible.size(), 0u);
  EXPECT_NE(fx.screen().find("no GPU matches the filter"), std::string::npos);
  (void)fleet_key(key(0x7f), fx.state, fx.data, 20);
  EXPECT_EQ(fx.data.visible.size(), 1u);
  (void)fleet_key(Key{KeyCode::Escape}, fx.state, fx.data, 20);
  EXPECT_FALSE(fx.state.editing_filter);
  EXPECT_EQ(fx.data.visible.size(), 3u);
}

TEST(FleetView, enter_opens_the_history_and_esc_goes_back) {
  Fixture fx;
  (void)fleet_key(Key{KeyCode::Down}, fx.state, fx.data, 20);
  EXPECT_EQ(fleet_key(Key{KeyCode::Enter}, fx.state, fx.data, 20), FleetAction::OpenHistory);
  EXPECT_TRUE(fx.state.detail);
  EXPECT_NE(fx.screen().find("loading history"), std::string::npos);
  fleet::GpuHistory h;
  h.key = selected_row(fx.data, fx.state)->key;
  for (int i = 0; i <= 240; ++i) {
    h.points.push_back(
        {.t_ns = i * 15'000'000'000LL, .compute_sol_pct = 30, .memory_sol_pct = 40, .gpu_util_pct = 90});
  }
  fx.data.history = h;
  const std::string s = fx.screen(40, 120);
  EXPECT_NE(s.find("node2 GPU 1"), std::string::npos) << s;
  EXPECT_NE(s.find("Compute SOL %"), std::string::npos);
  EXPECT_NE(s.find("Memory SOL %"), std::string::npos);
  EXPECT_NE(s.find("classic utilization %"), std::string::npos);
  EXPECT_EQ(fleet_key(Key{KeyCode::Escape}, fx.state, fx.data, 20), FleetAction::None);
  EXPECT_FALSE(fx.state.detail);
  EXPECT_EQ(fleet_key(key('q'), fx.state, fx.data, 20), FleetAction::Quit);
  EXPECT_EQ(fleet_key(key('r'), fx.state, fx.data, 20), FleetAction::Refresh);
}

TEST(FleetView, scrolling_keeps_the_selection_on_screen) {
  FleetViewData data;
  FleetViewState state;
  for (int i = 0; i < 1000; ++i) data.snapshot.rows.push_back(row("h" + std::to_string(i), "0", i % 100));
  apply_view(data, state, 10);
  (void)fleet_key(Key{KeyCode::End}, state, data, 10);
  EXPECT_EQ(state.selected, 999u);
  EXPECT_EQ(state.top, 990u);
  (void)fleet_key(Key{KeyCode::PageUp}, state, data, 10);
  EXPECT_EQ(state.selected, 989u);
  EXPECT_EQ(state.top, 989u);
  (void)fleet_key(Key{KeyCode::Home}, state, data, 10);
  EXPECT_EQ(state.selected, 0u);
  EXPECT_EQ(state.top, 0u);
}

TEST(FleetView, an_error_is_shown_and_the_rows_stay) {
  Fixture fx;
  fx.data.error = "Prometheus at http://p:9090 did not answer the GPU count query: Connection";
  const std::string s = fx.screen();
  EXPECT_NE(s.find("error: Prometheus at http://p:9090 did not answer"), std::string::npos) << s;
  EXPECT_NE(s.find("node10"), std::string::npos);
}

// Issue 25: the ITER column gives each GPU's iteration and marks its job's straggler with '*'; "-" when the
// GPU is not periodic. It is the last column to get room: none at 100 columns.
TEST(FleetView, the_iter_column_marks_the_iteration_straggler) {
  Fixture fx;
  fx.data.snapshot.rows[0].iteration_s = 0.125;  // node2/0 (the rows are sorted by host)
  fx.data.snapshot.rows[0].iteration_straggler = true;
  fx.data.snapshot.rows[1].iteration_s = 1.5;  // node2/1
  apply_view(fx.data, fx.state, 20);
  EXPECT_NE(fx.row_text(2).find("   GAP     ITER "), std::string::npos) << fx.row_text(2);
  EXPECT_NE(fx.row_text(3).find(" 125.0 ms*"), std::string::npos) << fx.row_text(3);
  EXPECT_NE(fx.row_text(4).find("  -10.0   1.50 s "), std::string::npos) << fx.row_text(4);
  EXPECT_NE(fx.row_text(5).find("      -        - "), std::string::npos) << fx.row_text(5);
  EXPECT_EQ(fx.screen(24, 100).find("ITER"), std::string::npos);
}

}  // namespace
}  // namespace solscope::tui
