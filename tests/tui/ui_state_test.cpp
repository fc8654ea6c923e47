#include <gtest/gtest.h>

#include "tui/detail/ui_state.hpp"

namespace solscope::tui {
namespace {

auto ch(char32_t c) -> Key {
  return Key{KeyCode::Char, c};
}

TEST(UiStateTest, keys_map_to_the_documented_actions) {
  EXPECT_EQ(map_key(ch(U'q')), Action::Quit);
  EXPECT_EQ(map_key(Key{KeyCode::Escape}), Action::Back);
  EXPECT_EQ(map_key(ch(U'?')), Action::Help);
  EXPECT_EQ(map_key(Key{KeyCode::F1}), Action::Help);
  EXPECT_EQ(map_key(ch(U'p')), Action::Pause);
  EXPECT_EQ(map_key(ch(U' ')), Action::Pause);
  EXPECT_EQ(map_key(Key{KeyCode::Up}), Action::Up);
  EXPECT_EQ(map_key(Key{KeyCode::Enter}), Action::Open);
  EXPECT_EQ(map_key(ch(U'[')), Action::SeekBack);
  EXPECT_EQ(map_key(ch(U']')), Action::SeekForward);
  EXPECT_EQ(map_key(ch(U'+')), Action::Faster);
  EXPECT_EQ(map_key(ch(U'-')), Action::Slower);
  EXPECT_EQ(map_key(ch(U'2')), Action::ShowClassic);
  EXPECT_EQ(map_key(ch(U'w')), Action::WindowLonger);
  EXPECT_EQ(map_key(ch(U'x')), Action::None);
  EXPECT_EQ(map_key(Key{KeyCode::Resize}), Action::Redraw);
}

TEST(UiStateTest, arrows_move_the_selection_within_the_grid_and_clamp) {
  UiState s;
  (void)apply(s, Action::Down, 8, 2);
  EXPECT_EQ(s.selected, 2u);
  (void)apply(s, Action::Right, 8, 2);
  EXPECT_EQ(s.selected, 3u);
  (void)apply(s, Action::Last, 8, 2);
  EXPECT_EQ(s.selected, 7u);
  (void)apply(s, Action::Down, 8, 2);
  EXPECT_EQ(s.selected, 7u);
  (void)apply(s, Action::Up, 8, 2);
  EXPECT_EQ(s.selected, 5u);
  (void)apply(s, Action::First, 8, 2);
  EXPECT_EQ(s.selected, 0u);
  (void)apply(s, Action::Left, 8, 2);
  EXPECT_EQ(s.selected, 0u);
}

TEST(UiStateTest, enter_opens_detail_and_esc_goes_back_then_quits) {
  UiState s;
  s.view = View::Dcgm;
  EXPECT_EQ(apply(s, Action::Open, 4, 1).kind, Command::Kind::Redraw);
  EXPECT_EQ(s.view, View::Detail);
  EXPECT_EQ(apply(s, Action::Back, 4, 1).kind, Command::Kind::Redraw);
  EXPECT_EQ(s.view, View::Dcgm);
  EXPECT_EQ(apply(s, Action::Back, 4, 1).kind, Command::Kind::Quit);
}

TEST(UiStateTest, help_closes_on_any_key_but_q_quits) {
  UiState s;
  (void)apply(s, Action::Help, 2, 1);
  EXPECT_TRUE(s.help);
  EXPECT_EQ(apply(s, Action::Down, 2, 1).kind, Command::Kind::Redraw);
  EXPECT_FALSE(s.help);
  EXPECT_EQ(s.selected, 0u);
  (void)apply(s, Action::Help, 2, 1);
  EXPECT_EQ(apply(s, Action::None, 2, 1).kind, Command::Kind::Redraw);
  EXPECT_FALSE(s.help);
  (void)apply(s, Action::Help, 2, 1);
  EXPECT_EQ(apply(s, Action::Quit, 2, 1).kind, Command::Kind::Quit);
}

TEST(UiStateTest, chart_window_steps_from_one_minute_to_one_hour) {
  UiState s;
  EXPECT_EQ(s.chart_window_ns(), 60'000'000'000);
  for (int i = 0; i < 10; ++i) (void)apply(s, Action::WindowLonger, 1, 1);
  EXPECT_EQ(s.chart_window_ns(), 3'600'000'000'000);
  for (int i = 0; i < 10; ++i) (void)apply(s, Action::WindowShorter, 1, 1);
  EXPECT_EQ(s.chart_window_ns(), 60'000'000'000);
}

TEST(UiStateTest, playback_keys_become_commands) {
  UiState s;
  EXPECT_EQ(apply(s, Action::Pause, 1, 1).kind, Command::Kind::TogglePause);
  const Command faster = apply(s, Action::Faster, 1, 1);
  EXPECT_EQ(faster.kind, Command::Kind::Speed);
  EXPECT_EQ(faster.speed_steps, 1);
  const Command back = apply(s, Action::SeekBackLong, 1, 1);
  EXPECT_EQ(back.kind, Command::Kind::Seek);
  EXPECT_EQ(back.seek_ns, -kSeekLongNs);
}

// Issue 24: 5 and u open the per-workload roll-up and close it again; Esc leaves it for the view it was
// opened from, then quits; from Detail it returns to the view Detail was opened from, never looping.
TEST(UiStateTest, five_and_u_toggle_the_workloads_view_and_esc_leaves_it) {
  EXPECT_EQ(map_key(ch(U'5')), Action::ToggleWorkloads);
  EXPECT_EQ(map_key(ch(U'u')), Action::ToggleWorkloads);
  UiState s;
  s.view = View::Classic;
  EXPECT_EQ(apply(s, Action::ToggleWorkloads, 4, 1).kind, Command::Kind::Redraw);
  EXPECT_EQ(s.view, View::Workloads);
  (void)apply(s, Action::ToggleWorkloads, 4, 1);
  EXPECT_EQ(s.view, View::Classic);
  (void)apply(s, Action::ToggleWorkloads, 4, 1);
  EXPECT_EQ(apply(s, Action::Back, 4, 1).kind, Command::Kind::Redraw);
  EXPECT_EQ(s.view, View::Classic);
  // Dcgm -> Enter (Detail) -> 5 (Workloads) -> Esc: Dcgm; Workloads -> Enter (Detail) -> Esc -> Esc -> quit.
  s.view = View::Dcgm;
  (void)apply(s, Action::Open, 4, 1);
  (void)apply(s, Action::ToggleWorkloads, 4, 1);
  EXPECT_EQ(s.view, View::Workloads);
  (void)apply(s, Action::Back, 4, 1);
  EXPECT_EQ(s.view, View::Dcgm);
  (void)apply(s, Action::ToggleWorkloads, 4, 1);
  (void)apply(s, Action::Open, 4, 1);
  EXPECT_EQ(s.view, View::Detail);
  (void)apply(s, Action::Back, 4, 1);
  EXPECT_EQ(s.view, View::Workloads);
  (void)apply(s, Action::ToggleWorkloads, 4, 1);  // Detail was opened from here: back to Dcgm, not Detail
  EXPECT_EQ(s.view, View::Dcgm);
  EXPECT_EQ(apply(s, Action::Back, 4, 1).kind, Command::Kind::Quit);
  // v cycles through it after Detail.
  s.view = View::Detail;
  (void)apply(s, Action::NextView, 4, 1);
  EXPECT_EQ(s.view, View::Workloads);
  (void)apply(s, Action::NextView, 4, 1);
  EXPECT_EQ(s.view, View::Sol);
}

TEST(UiStateTest, detail_needs_a_gpu) {
  UiState s;
  (void)apply(s, Action::ShowDetail, 0, 1);
  EXPECT_EQ(s.view, View::Sol);
  for (int i = 0; i < 4; ++i) (void)apply(s, Action::NextView, 0, 1);
  EXPECT_NE(s.view, View::Detail);
}

}  // namespace
}  // namespace solscope::tui
