#include "tui/detail/ui_state.hpp"

#include <algorithm>
#include <optional>

namespace solscope::tui {
namespace {

constexpr char32_t kCtrlL = 0x0C;

/// Character keys and their actions (the help overlay in view_chrome.cpp lists them).
struct CharKey {
  char32_t ch;
  Action action;
};
constexpr CharKey kCharKeys[] = {
    {U'q', Action::Quit},
    {U'Q', Action::Quit},
    {U'?', Action::Help},
    {U'h', Action::Help},
    {U'p', Action::Pause},
    {U' ', Action::Pause},
    {U'v', Action::NextView},
    {U'\t', Action::NextView},
    {U'1', Action::ShowSol},
    {U's', Action::ShowSol},
    {U'2', Action::ShowClassic},
    {U'c', Action::ShowClassic},
    {U'3', Action::ShowDcgm},
    {U'd', Action::ShowDcgm},
    {U'4', Action::ShowDetail},
    {U'5', Action::ToggleWorkloads},
    {U'u', Action::ToggleWorkloads},
    {U'w', Action::WindowLonger},
    {U'W', Action::WindowShorter},
    {U'+', Action::Faster},
    {U'=', Action::Faster},
    {U'-', Action::Slower},
    {U'_', Action::Slower},
    {U'[', Action::SeekBack},
    {U']', Action::SeekForward},
    {U'{', Action::SeekBackLong},
    {U'}', Action::SeekForwardLong},
    {U'a', Action::ToggleAscii},
    {U'k', Action::Up},
    {U'j', Action::Down},
    {U'\n', Action::Open},
    {U'\r', Action::Open},
    {kCtrlL, Action::Redraw},
    {0x1B, Action::Back},
};

auto map_char(char32_t c) -> Action {
  for (const auto& k : kCharKeys) {
    if (k.ch == c) return k.action;
  }
  return Action::None;
}

void show(UiState& s, View view, std::size_t device_count) {
  if (view == View::Detail && device_count == 0) return;
  if (view == View::Detail && s.view != View::Detail) s.back_view = s.view;
  if (view == View::Workloads && s.view != View::Workloads) {
    // Where to return: the view it is opened from, or the one Detail was opened from; never Detail or
    // itself, so that Esc always ends in a view that quits.
    const View from = s.view == View::Detail ? s.back_view : s.view;
    s.workloads_back = from == View::Workloads || from == View::Detail ? View::Sol : from;
  }
  s.view = view;
}

auto next_view(View v) -> View {
  switch (v) {
    case View::Sol:
      return View::Classic;
    case View::Classic:
      return View::Dcgm;
    case View::Dcgm:
      return View::Detail;
    case View::Detail:
      return View::Workloads;
    case View::Workloads:
      return View::Sol;
  }
  return View::Sol;
}

/// Opens the Workloads view, or leaves it for the view it was opened from.
void toggle_workloads(UiState& s, std::size_t device_count) {
  if (s.view == View::Workloads) {
    s.view = s.workloads_back;
    return;
  }
  show(s, View::Workloads, device_count);
}

/// Moves the selection by `delta`, clamped to the list.
void move(UiState& s, long delta, std::size_t device_count) {
  if (device_count == 0) return;
  const long last = static_cast<long>(device_count) - 1;
  s.selected = static_cast<std::size_t>(std::clamp(static_cast<long>(s.selected) + delta, 0L, last));
}

/// Selection moves; nullopt for other actions.
auto apply_move(UiState& s, Action action, std::size_t device_count, int columns) -> std::optional<Command> {
  const long step = s.view == View::Sol ? std::max(columns, 1) : 1;
  const auto all = static_cast<long>(device_count);
  long delta = 0;
  switch (action) {
    case Action::Up:
      delta = -step;
      break;
    case Action::Down:
      delta = step;
      break;
    case Action::Left:
      delta = -1;
      break;
    case Action::Right:
      delta = 1;
      break;
    case Action::First:
      delta = -all;
      break;
    case Action::Last:
      delta = all;
      break;
    default:
      return std::nullopt;
  }
  move(s, delta, device_count);
  return Command{Command::Kind::Redraw};
}

/// Replay speed and seek; nullopt for other actions.
auto playback_command(Action action) -> std::optional<Command> {
  using Kind = Command::Kind;
  switch (action) {
    case Action::Faster:
      return Command{Kind::Speed, 1};
    case Action::Slower:
      return Command{Kind::Speed, -1};
    case Action::SeekBack:
      return Command{Kind::Seek, 0, -kSeekShortNs};
    case Action::SeekForward:
      return Command{Kind::Seek, 0, kSeekShortNs};
    case Action::SeekBackLong:
      return Command{Kind::Seek, 0, -kSeekLongNs};
    case Action::SeekForwardLong:
      return Command{Kind::Seek, 0, kSeekLongNs};
    default:
      return std::nullopt;
  }
}

}  // namespace

auto map_key(const Key& key) -> Action {
  switch (key.code) {
    case KeyCode::Char:
      return map_char(key.ch);
    case KeyCode::Up:
      return Action::Up;
    case KeyCode::Down:
      return Action::Down;
    case KeyCode::Left:
      return Action::Left;
    case KeyCode::Right:
      return Action::Right;
    case KeyCode::Enter:
      return Action::Open;
    case KeyCode::Escape:
      return Action::Back;
    case KeyCode::Tab:
      return Action::NextView;
    case KeyCode::Home:
    case KeyCode::PageUp:
      return Action::First;
    case KeyCode::End:
    case KeyCode::PageDown:
      return Action::Last;
    case KeyCode::F1:
      return Action::Help;
    case KeyCode::Resize:
      return Action::Redraw;
  }
  return Action::None;
}

auto apply(UiState& s, Action action, std::size_t device_count, int columns) -> Command {
  using Kind = Command::Kind;
  if (s.help && action != Action::Quit) {
    s.help = false;  // any key but q closes the help overlay, even one without an action
    return Command{Kind::Redraw};
  }
  if (auto moved = apply_move(s, action, device_count, columns)) return *moved;
  if (auto played = playback_command(action)) return *played;
  switch (action) {
    case Action::Quit:
      return Command{Kind::Quit};
    case Action::Back:
      if (s.view == View::Workloads) {
        s.view = s.workloads_back;
        break;
      }
      if (s.view != View::Detail) return Command{Kind::Quit};
      s.view = s.back_view;
      break;
    case Action::Help:
      s.help = true;
      break;
    case Action::Pause:
      return Command{Kind::TogglePause};
    case Action::NextView:
      show(s, device_count == 0 && s.view == View::Dcgm ? View::Sol : next_view(s.view), device_count);
      break;
    case Action::ShowSol:
      show(s, View::Sol, device_count);
      break;
    case Action::ShowClassic:
      show(s, View::Classic, device_count);
      break;
    case Action::ShowDcgm:
      show(s, View::Dcgm, device_count);
      break;
    case Action::ShowDetail:
      show(s, View::Detail, device_count);
      break;
    case Action::ToggleWorkloads:
      toggle_workloads(s, device_count);
      break;
    case Action::Open:
      if (s.view == View::Detail) {
        s.view = s.back_view;
      } else {
        show(s, View::Detail, device_count);
      }
      break;
    case Action::WindowLonger:
      s.window = std::min(s.window + 1, kChartWindowsNs.size() - 1);
      break;
    case Action::WindowShorter:
      s.window = s.window == 0 ? 0 : s.window - 1;
      break;
    case Action::ToggleAscii:
      s.ascii = !s.ascii;
      break;
    case Action::Redraw:
      break;
    default:
      return {};
  }
  return Command{Kind::Redraw};
}

}  // namespace solscope::tui
