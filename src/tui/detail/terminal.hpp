// Terminal: the ncursesw backend of the view. Starts curses on a terminal, maps roles to colours for the
// terminal's capability, shows Frames (only the cells that changed), reads keys, follows resizes, and always
// gives the terminal back: on close(), destruction, and on fatal signals (SIGSEGV, SIGABRT, SIGBUS, SIGFPE,
// SIGILL) through an async-signal-safe handler. SIGTSTP/SIGCONT and SIGWINCH are handled by ncurses' own
// handlers (it installs them when their action is the default). Public header: no curses include.
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "core/result.hpp"
#include "tui/detail/frame.hpp"
#include "tui/detail/style.hpp"
#include "tui/detail/ui_state.hpp"

struct screen;  // ncurses' SCREEN

namespace solscope::tui {

/// Where the terminal is and how to treat it.
struct TerminalOptions {
  std::FILE* out = nullptr;  ///< the terminal's output; stdout when null
  std::FILE* in = nullptr;   ///< its input; stdin when null
  std::string term;          ///< terminal type ($TERM as read by the caller); empty = curses' default
  std::string no_color;      ///< $NO_COLOR as read by the caller
  std::string colors;        ///< $SOLSCOPE_COLORS as read by the caller ("256", "16", "mono")
  bool fatal_signal_handlers = true;  ///< restore the terminal on crashes (the process has one Terminal)
};

/// One curses screen. Not thread-safe: one thread owns it. At most one Terminal may be open at a time.
class Terminal {
 public:
  /// Starts curses (newterm) with keypad, no echo, cbreak, hidden cursor and the colours of
  /// choose_color_mode(). Errors: FailedPrecondition when a Terminal is already open; Unavailable "cannot
  /// start the terminal view on TERM=...: unknown terminal type" when newterm fails.
  [[nodiscard]] static auto open(const TerminalOptions& options) -> core::Result<std::unique_ptr<Terminal>>;
  ~Terminal();  ///< close()
  Terminal(const Terminal&) = delete;
  auto operator=(const Terminal&) -> Terminal& = delete;

  /// Leaves curses and restores the terminal (endwin). Idempotent.
  void close();
  [[nodiscard]] auto rows() const -> int;
  [[nodiscard]] auto cols() const -> int;
  [[nodiscard]] auto color_mode() const -> ColorMode { return mode_; }
  /// True when the locale's character set is UTF-8 (else the view draws ASCII only).
  [[nodiscard]] auto utf8() const -> bool { return utf8_; }
  /// Waits at most `timeout_ms` (>= 0) for a key; nullopt when none came. A resize gives KeyCode::Resize.
  [[nodiscard]] auto read_key(int timeout_ms) -> std::optional<Key>;
  /// Shows `frame`, writing only the cells that differ from the previously shown frame (all of them after a
  /// size change or invalidate()).
  void present(const Frame& frame);
  /// Makes the next present() redraw the whole screen (Ctrl-L, after a resize).
  void invalidate();
  /// Sets the screen size explicitly (tests and benchmarks on a terminal without a size, e.g. /dev/null).
  void resize(int rows, int cols);

 private:
  Terminal() = default;
  void init_roles();
  void write_cell(int row, int col, const Cell& cell);

  ::screen* screen_ = nullptr;
  std::FILE* out_ = nullptr;
  ColorMode mode_ = ColorMode::Mono;
  bool utf8_ = false;
  bool closed_ = false;
  Frame shown_{0, 0};
  bool full_redraw_ = true;
  unsigned attrs_[kRoleCount] = {};
  short pairs_[kRoleCount] = {};
};

}  // namespace solscope::tui
