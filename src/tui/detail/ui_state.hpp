// The view's own state (view, selected GPU, chart window, help, pause) and the pure mapping from keys to
// actions and from actions to state changes, so that every key is tested without a terminal.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "tui/detail/layout.hpp"

namespace solscope::tui {

/// Chart windows the user steps through: 1 min, 5 min, 15 min, 30 min, 1 h.
inline constexpr std::array<std::int64_t, 5> kChartWindowsNs = {
    60'000'000'000, 300'000'000'000, 900'000'000'000, 1'800'000'000'000, 3'600'000'000'000};
/// Seek steps of `[`/`]` and `{`/`}`.
inline constexpr std::int64_t kSeekShortNs = 10'000'000'000;
inline constexpr std::int64_t kSeekLongNs = 60'000'000'000;

/// What the user chose.
struct UiState {
  View view = View::Sol;
  View back_view = View::Sol;  ///< where Esc/Enter returns from Detail
  /// Where `5`/`u` or Esc returns from Workloads: the view it was opened from (the view Detail was opened
  /// from when opened from Detail); never Detail or Workloads, so that Esc always ends in a view that quits.
  View workloads_back = View::Sol;
  std::size_t selected = 0;  ///< position of the selected GPU in the device list
  std::size_t window = 0;    ///< index into kChartWindowsNs
  bool help = false;         ///< help overlay shown
  bool frozen = false;       ///< live figures paused (no replay controls)
  bool ascii = false;        ///< ASCII charts and bars instead of Unicode
  auto operator==(const UiState&) const -> bool = default;
  [[nodiscard]] auto chart_window_ns() const -> std::int64_t { return kChartWindowsNs[window]; }
};

/// A key as the terminal backend reports it.
enum class KeyCode : std::uint8_t {
  Char,  ///< a character in Key::ch
  Up,
  Down,
  Left,
  Right,
  Enter,
  Escape,
  Tab,
  Home,
  End,
  PageUp,
  PageDown,
  F1,
  Resize,  ///< the terminal changed size
};
struct Key {
  KeyCode code = KeyCode::Char;
  char32_t ch = 0;
};

/// What a key asks for.
enum class Action : std::uint8_t {
  None,
  Quit,             ///< q
  Back,             ///< Esc: close help, leave Detail, else quit
  Help,             ///< ? h F1
  Pause,            ///< p space
  NextView,         ///< v Tab
  ShowSol,          ///< 1 s
  ShowClassic,      ///< 2 c
  ShowDcgm,         ///< 3 d
  ShowDetail,       ///< 4
  ToggleWorkloads,  ///< 5 u: the per-workload roll-up, or back from it
  Up,
  Down,
  Left,
  Right,
  First,            ///< Home
  Last,             ///< End
  Open,             ///< Enter: Detail of the selected GPU, or back
  WindowLonger,     ///< w
  WindowShorter,    ///< W
  Faster,           ///< + =
  Slower,           ///< - _
  SeekBack,         ///< [
  SeekForward,      ///< ]
  SeekBackLong,     ///< {
  SeekForwardLong,  ///< }
  ToggleAscii,      ///< a
  Redraw,           ///< Ctrl-L, or a terminal resize
};

/// The action of a key (pure). Unknown keys give Action::None.
[[nodiscard]] auto map_key(const Key& key) -> Action;

/// What the main loop must do beyond the state change.
struct Command {
  enum class Kind : std::uint8_t { None, Quit, TogglePause, Speed, Seek, Redraw };
  Kind kind = Kind::None;
  int speed_steps = 0;       ///< Speed: +1 faster, -1 slower
  std::int64_t seek_ns = 0;  ///< Seek: signed trace-time offset
};

/// Applies `action` to `state` (pure). `device_count` bounds the selection; `columns` is how many GPU panels
/// sit side by side (Up/Down move by that many, Left/Right by one).
[[nodiscard]] auto apply(UiState& state, Action action, std::size_t device_count, int columns) -> Command;

}  // namespace solscope::tui
