#include "tui/detail/terminal.hpp"

#include <curses.h>
#include <langinfo.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <clocale>
#include <csignal>
#include <cstring>

namespace solscope::tui {
namespace {

/// What the fatal-signal handler needs, prepared before it is installed (the handler only reads it).
struct CrashRestore {
  int out_fd = -1;
  int in_fd = -1;
  char sequence[256] = {};  ///< terminfo rmcup + cnorm + sgr0: leave the alternate screen, show the cursor
  std::size_t length = 0;
  termios saved{};
  bool have_termios = false;
};
CrashRestore g_restore;  // NOLINT: read by the signal handler
std::atomic<bool> g_terminal_open{false};
constexpr int kFatalSignals[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};
struct sigaction g_previous[std::size(kFatalSignals)];  // NOLINT: restored by close()

extern "C" void restore_on_fatal_signal(int signo) {
  // Only async-signal-safe calls: write(2), tcsetattr(3), sigaction(2), raise(3).
  if (g_restore.length > 0) {
    [[maybe_unused]] const auto n = write(g_restore.out_fd, g_restore.sequence, g_restore.length);
  }
  if (g_restore.have_termios) tcsetattr(g_restore.in_fd, TCSANOW, &g_restore.saved);
  // Hand the signal on to what was installed before the view (the app's crash report, else the default), now
  // that the terminal can show it.
  for (std::size_t i = 0; i < std::size(kFatalSignals); ++i) {
    if (kFatalSignals[i] == signo) sigaction(signo, &g_previous[i], nullptr);
  }
  std::raise(signo);
}

void append_capability(const char* name) {
  const char* value = tigetstr(name);
  // terminfo(3): tigetstr() returns (char *)-1 for a name that is not a string capability.
  // NOLINTNEXTLINE(performance-no-int-to-ptr)
  if (value == nullptr || value == reinterpret_cast<const char*>(-1)) return;
  const std::size_t n = std::strlen(value);
  if (g_restore.length + n >= sizeof g_restore.sequence) return;
  std::memcpy(g_restore.sequence + g_restore.length, value, n);
  g_restore.length += n;
}

void install_fatal_handlers() {
  append_capability("sgr0");
  append_capability("cnorm");
  append_capability("rmcup");
  struct sigaction action {};
  action.sa_handler = restore_on_fatal_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  for (std::size_t i = 0; i < std::size(kFatalSignals); ++i) {
    sigaction(kFatalSignals[i], &action, &g_previous[i]);
  }
}

void remove_fatal_handlers() {
  for (std::size_t i = 0; i < std::size(kFatalSignals); ++i)
    sigaction(kFatalSignals[i], &g_previous[i], nullptr);
  g_restore.length = 0;
}

/// Foreground, background and attributes of each role, per colour mode (indexed by Role). -1 = default.
struct Look {
  short fg;
  short bg;
  attr_t attr;
};
constexpr Look kLook256[kRoleCount] = {
    {-1, -1, A_NORMAL}, {245, -1, A_NORMAL}, {-1, -1, A_BOLD},    {231, 24, A_BOLD},   {252, 238, A_NORMAL},
    {16, 117, A_BOLD},  {39, -1, A_NORMAL},  {170, -1, A_NORMAL}, {179, -1, A_NORMAL}, {196, -1, A_BOLD},
    {34, -1, A_NORMAL}, {214, -1, A_BOLD},   {196, -1, A_BOLD},   {16, 214, A_BOLD},   {43, -1, A_NORMAL}};
constexpr Look kLook16[kRoleCount] = {{-1, -1, A_NORMAL},
                                      {-1, -1, A_DIM},
                                      {-1, -1, A_BOLD},
                                      {COLOR_WHITE, COLOR_BLUE, A_BOLD},
                                      {COLOR_BLACK, COLOR_WHITE, A_NORMAL},
                                      {COLOR_BLACK, COLOR_CYAN, A_BOLD},
                                      {COLOR_CYAN, -1, A_NORMAL},
                                      {COLOR_MAGENTA, -1, A_NORMAL},
                                      {COLOR_YELLOW, -1, A_NORMAL},
                                      {COLOR_RED, -1, A_BOLD},
                                      {COLOR_GREEN, -1, A_NORMAL},
                                      {COLOR_YELLOW, -1, A_BOLD},
                                      {COLOR_RED, -1, A_BOLD},
                                      {COLOR_BLACK, COLOR_YELLOW, A_BOLD},
                                      {COLOR_BLUE, -1, A_BOLD}};
constexpr attr_t kMono[kRoleCount] = {
    A_NORMAL, A_DIM,    A_BOLD, A_REVERSE, A_REVERSE, A_REVERSE | A_BOLD,   A_NORMAL,
    A_NORMAL, A_NORMAL, A_BOLD, A_NORMAL,  A_BOLD,    A_BOLD | A_UNDERLINE, A_REVERSE | A_BOLD,
    A_NORMAL};

auto translate(int result, wint_t ch) -> std::optional<Key> {
  if (result == KEY_CODE_YES) {
    switch (ch) {
      case KEY_UP:
        return Key{KeyCode::Up};
      case KEY_DOWN:
        return Key{KeyCode::Down};
      case KEY_LEFT:
        return Key{KeyCode::Left};
      case KEY_RIGHT:
        return Key{KeyCode::Right};
      case KEY_ENTER:
        return Key{KeyCode::Enter};
      case KEY_HOME:
        return Key{KeyCode::Home};
      case KEY_END:
        return Key{KeyCode::End};
      case KEY_PPAGE:
        return Key{KeyCode::PageUp};
      case KEY_NPAGE:
        return Key{KeyCode::PageDown};
      case KEY_F(1):
        return Key{KeyCode::F1};
      case KEY_RESIZE:
        return Key{KeyCode::Resize};
      default:
        return Key{KeyCode::Char, 0};
    }
  }
  if (result != OK) return std::nullopt;
  if (ch == 27) return Key{KeyCode::Escape};
  if (ch == '\n' || ch == '\r') return Key{KeyCode::Enter};
  if (ch == '\t') return Key{KeyCode::Tab};
  return Key{KeyCode::Char, static_cast<char32_t>(ch)};
}

}  // namespace

auto Terminal::open(const TerminalOptions& options) -> core::Result<std::unique_ptr<Terminal>> {
  if (g_terminal_open.exchange(true)) {
    return core::fail(core::ErrorCode::FailedPrecondition, "the terminal view is already open");
  }
  std::unique_ptr<Terminal> t(new Terminal());
  std::FILE* out = options.out != nullptr ? options.out : stdout;
  std::FILE* in = options.in != nullptr ? options.in : stdin;
  std::setlocale(LC_CTYPE, "");
  t->utf8_ = std::strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
  g_restore.in_fd = fileno(in);
  g_restore.out_fd = fileno(out);
  g_restore.have_termios = tcgetattr(g_restore.in_fd, &g_restore.saved) == 0;
  const char* term = options.term.empty() ? nullptr : options.term.c_str();
  t->screen_ = newterm(term, out, in);
  if (t->screen_ == nullptr) {
    g_terminal_open.store(false);
    return core::fail(
        core::ErrorCode::Unavailable,
        "cannot start the terminal view on TERM=" + options.term + ": unknown terminal type",
        "set TERM to a known type (e.g. xterm-256color), or pipe the output for the plain view");
  }
  t->out_ = out;
  set_term(t->screen_);
  cbreak();
  noecho();
  nonl();
  keypad(stdscr, TRUE);
  set_escdelay(25);
  curs_set(0);
  leaveok(stdscr, TRUE);
  if (has_colors()) start_color();
  t->mode_ = choose_color_mode(options.no_color, options.colors, has_colors() ? COLORS : 0);
  t->init_roles();
  if (options.fatal_signal_handlers) install_fatal_handlers();
  return t;
}

void Terminal::init_roles() {
  const bool defaults = mode_ != ColorMode::Mono && use_default_colors() == OK;
  for (std::size_t i = 0; i < kRoleCount; ++i) {
    if (mode_ == ColorMode::Mono) {
      attrs_[i] = kMono[i];
      pairs_[i] = 0;
      continue;
    }
    Look look = mode_ == ColorMode::Color256 ? kLook256[i] : kLook16[i];
    if (!defaults) {
      look.fg = look.fg < 0 ? static_cast<short>(COLOR_WHITE) : look.fg;
      look.bg = look.bg < 0 ? static_cast<short>(COLOR_BLACK) : look.bg;
    }
    const auto pair = static_cast<short>(i + 1);
    init_pair(pair, look.fg, look.bg);
    attrs_[i] = look.attr;
    pairs_[i] = pair;
  }
}

Terminal::~Terminal() {
  close();
}

void Terminal::close() {
  if (closed_ || screen_ == nullptr) return;
  closed_ = true;
  set_term(screen_);
  curs_set(1);
  endwin();
  delscreen(screen_);
  screen_ = nullptr;
  if (out_ != nullptr) std::fflush(out_);
  remove_fatal_handlers();
  g_terminal_open.store(false);
}

auto Terminal::rows() const -> int {
  return getmaxy(stdscr);
}

auto Terminal::cols() const -> int {
  return getmaxx(stdscr);
}

auto Terminal::read_key(int timeout_ms) -> std::optional<Key> {
  wtimeout(stdscr, timeout_ms < 0 ? 0 : timeout_ms);
  wint_t ch = 0;
  const int result = wget_wch(stdscr, &ch);
  auto key = translate(result, ch);
  if (key && key->code == KeyCode::Resize) invalidate();
  return key;
}

void Terminal::write_cell(int row, int col, const Cell& cell) {
  wchar_t text[2] = {static_cast<wchar_t>(utf8_ || cell.glyph < 0x7F ? cell.glyph : U'?'), 0};
  cchar_t cc;
  const auto role = static_cast<std::size_t>(cell.role);
  setcchar(&cc, text, attrs_[role], pairs_[role], nullptr);
  mvwadd_wch(stdscr, row, col, &cc);
}

void Terminal::present(const Frame& frame) {
  const bool full = full_redraw_ || frame.rows() != shown_.rows() || frame.cols() != shown_.cols();
  if (full) clearok(stdscr, TRUE);
  for (int r = 0; r < frame.rows(); ++r) {
    for (int c = 0; c < frame.cols(); ++c) {
      const Cell cell = frame.at(r, c);
      if (full || !(cell == shown_.at(r, c))) write_cell(r, c, cell);
    }
  }
  wnoutrefresh(stdscr);
  doupdate();
  shown_ = frame;
  full_redraw_ = false;
}

void Terminal::invalidate() {
  full_redraw_ = true;
}

void Terminal::resize(int rows, int cols) {
  resizeterm(rows, cols);
  invalidate();
}

}  // namespace solscope::tui
